import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GlobalRegistrator } from "@happy-dom/global-registrator";
import { buildWidget, type WidgetFile } from "../../scripts/build-widget.ts";
import { PK, json, sampleData, stateOf, waitFor } from "../helpers/widget.ts";

const BUDGET_GZIPPED = 12 * 1024;

let files: WidgetFile[];
let loader: string;

// happy-dom only inside widget test files: registered globally it breaks Bun.serve elsewhere.
beforeAll(async () => {
  files = await buildWidget();
  loader = new TextDecoder().decode(files.find((f) => f.path === "loader.js")!.bytes);
  GlobalRegistrator.register({
    url: "https://shop.example/product",
    settings: { disableJavaScriptFileLoading: true, handleDisabledFileLoadingAsSuccess: true },
  });
});
afterAll(() => GlobalRegistrator.unregister());

describe("the built bundle", () => {
  test(`all files together are at most ${BUDGET_GZIPPED} bytes gzipped`, () => {
    const gzipped = files.reduce((sum, f) => sum + Bun.gzipSync(f.bytes, { level: 9 }).length, 0);
    console.log(`widget: ${files.length} file(s), ${files.reduce((s, f) => s + f.bytes.length, 0)} B, ${gzipped} B gzipped`);
    expect(gzipped).toBeGreaterThan(1000); // a real bundle, not an empty file
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIPPED);
  });

  test("a classic script: minified IIFE, JavaScript content type, no module syntax, no eval", () => {
    expect(files.map((f) => f.path)).toContain("loader.js");
    expect(files.find((f) => f.path === "loader.js")!.contentType).toBe("text/javascript; charset=utf-8");
    expect(loader.startsWith("(()=>{")).toBe(true);
    expect(loader).not.toMatch(/^\s*(import|export)\s/m);
    expect(loader).not.toMatch(/\beval\(|new Function\(/);
    expect(loader).not.toContain("/**"); // minified: no doc comments left
  });

  test("run in a page: finds its server from the script tag, renders, watches for more, survives a double include", async () => {
    const calls: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (url: string) => {
      calls.push(url);
      await Bun.sleep(5);
      return json({ data: sampleData({ barcode: new URL(url).searchParams.get("barcode")! }), meta: {} });
    }) as typeof fetch;
    try {
      document.head.innerHTML = '<script src="https://prices.example/widget/v1/loader.js" async></script>';
      document.body.innerHTML = `<div data-svc-widget data-barcode="7290000066318" data-api-key="${PK}"></div>`;
      new Function(loader)();
      new Function(loader)(); // included twice by a careless page
      const first = document.querySelector("[data-svc-widget]")!;
      await waitFor(() => stateOf(first) === "ok", "first widget");
      expect(calls).toEqual([`https://prices.example/api/v1/widget/data/?barcode=7290000066318&key=${PK}`]);
      expect(first.shadowRoot!.querySelectorAll("tbody tr")).toHaveLength(4);

      const late = document.createElement("div");
      late.setAttribute("data-svc-widget", "");
      late.setAttribute("data-barcode", "7290000000002");
      late.setAttribute("data-api-key", PK);
      document.body.appendChild(late);
      await waitFor(() => stateOf(late) === "ok", "late widget");
      expect(calls).toHaveLength(2);
      expect((window as unknown as { SvcWidget: { version: string } }).SvcWidget.version).toBe("1");
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
