import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { GlobalRegistrator } from "@happy-dom/global-registrator";
import { createRuntime } from "../../widget/runtime.ts";
import { DataClient } from "../../widget/api.ts";
import { serviceBase } from "../../widget/base-url.ts";
import { STRINGS } from "../../widget/strings.ts";
import { PK, fakeFetch, json, problem, sampleData, stateOf, waitFor } from "../helpers/widget.ts";

// happy-dom only inside widget test files: registered globally it breaks Bun.serve elsewhere.
beforeAll(() => GlobalRegistrator.register({ url: "https://shop.example/product", settings: { disableJavaScriptFileLoading: true, handleDisabledFileLoadingAsSuccess: true } }));
afterAll(() => GlobalRegistrator.unregister());
// The console's warnings about empty widgets are checked in their own block below; kept out of the output elsewhere.
const warn = console.warn;
beforeAll(() => void (console.warn = () => {}));
afterAll(() => void (console.warn = warn));

const BASE = "https://prices.example";

function widget(barcode: string, key = PK, extra = ""): HTMLElement {
  const holder = document.createElement("div");
  holder.innerHTML = `<div data-svc-widget data-barcode="${barcode}" data-api-key="${key}" ${extra}><a href="/fallback">prices</a></div>`;
  const el = holder.firstElementChild as HTMLElement;
  document.body.appendChild(el);
  return el;
}

function byBarcode(url: URL): Response {
  const barcode = url.searchParams.get("barcode")!;
  if (barcode === "404") return problem("product_not_found", 404);
  return json({ data: sampleData({ barcode, name: "מוצר " + barcode }), meta: {} });
}

describe("mounting", () => {
  test("renders into an open shadow root; the page's fallback content stays in the light DOM", async () => {
    document.body.innerHTML = "";
    const { fn } = fakeFetch(byBarcode);
    const el = widget("111");
    createRuntime(BASE, fn).scan(document);
    expect(stateOf(el)).toBe("loading");
    await waitFor(() => stateOf(el) === "ok", "rows");
    expect(el.shadowRoot!.querySelectorAll("tbody tr")).toHaveLength(4);
    expect(el.querySelector("a")!.getAttribute("href")).toBe("/fallback");
    expect(el.shadowRoot!.adoptedStyleSheets.length + el.shadowRoot!.querySelectorAll("style").length).toBeGreaterThan(0);
  });

  test("one request per barcode and key however many elements show it", async () => {
    document.body.innerHTML = "";
    const { fn, calls } = fakeFetch(byBarcode);
    const els = [widget("111"), widget("111"), widget("0111"), widget("222"), widget("111", "pk_live_" + "b".repeat(32))];
    createRuntime(BASE, fn).scan(document);
    await waitFor(() => els.every((e) => stateOf(e) === "ok"), "all widgets");
    const asked = calls.map((c) => new URL(c.url).searchParams);
    expect(asked.map((q) => `${q.get("barcode")}:${q.get("key")!.slice(8, 9)}`).sort()).toEqual(["111:a", "111:b", "222:a"]);
  });

  test("the request: GET {base}/api/v1/widget/data/ with barcode and key in the query, no credentials", async () => {
    document.body.innerHTML = "";
    const { fn, calls } = fakeFetch(byBarcode);
    const el = widget("7290000066318");
    createRuntime(BASE, fn).scan(document);
    await waitFor(() => stateOf(el) === "ok", "rows");
    const url = new URL(calls[0]!.url);
    expect(url.origin + url.pathname).toBe("https://prices.example/api/v1/widget/data/");
    expect(url.searchParams.get("barcode")).toBe("7290000066318");
    expect(url.searchParams.get("key")).toBe(PK);
    expect(calls[0]!.init?.credentials).toBe("omit");
    expect(calls[0]!.init?.headers).toBeUndefined(); // a simple request: no preflight
  });

  test("elements added later are picked up by the MutationObserver, nested ones too", async () => {
    document.body.innerHTML = "";
    const { fn, calls } = fakeFetch(byBarcode);
    const runtime = createRuntime(BASE, fn);
    runtime.scan(document);
    const observer = runtime.observe(document.documentElement)!;
    const late = widget("333");
    const box = document.createElement("section");
    box.innerHTML = `<article><div data-svc-widget data-barcode="444" data-api-key="${PK}"></div></article>`;
    document.body.appendChild(box);
    const nested = box.querySelector("[data-svc-widget]")!;
    await waitFor(() => stateOf(late) === "ok" && stateOf(nested) === "ok", "late widgets");
    expect(calls).toHaveLength(2);
    observer.disconnect();
  });

  test("mounting twice renders once", async () => {
    document.body.innerHTML = "";
    const { fn, calls } = fakeFetch(byBarcode);
    const el = widget("555");
    const runtime = createRuntime(BASE, fn);
    runtime.scan(document);
    runtime.scan(document);
    runtime.mount(el);
    await waitFor(() => stateOf(el) === "ok", "rows");
    expect(el.shadowRoot!.querySelectorAll(".w")).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  test("ready and error events on the element", async () => {
    document.body.innerHTML = "";
    const { fn } = fakeFetch(byBarcode);
    const ok = widget("666");
    const missing = widget("404");
    const seen: string[] = [];
    ok.addEventListener("svc:widget:ready", (e) => seen.push("ready:" + (e as CustomEvent).detail.barcode));
    missing.addEventListener("svc:widget:error", (e) => seen.push("error:" + (e as CustomEvent).detail.state));
    createRuntime(BASE, fn).scan(document);
    await waitFor(() => seen.length === 2, "events");
    expect(seen.sort()).toEqual(["error:not_found", "ready:666"]);
  });
});

describe("states from the service's answers", () => {
  const cases: [string, () => Response | Promise<Response>, string][] = [
    ["404 product_not_found", () => problem("product_not_found", 404), "not_found"],
    ["401 invalid_api_key", () => problem("invalid_api_key", 401), "key"],
    ["403 origin_not_allowed", () => problem("origin_not_allowed", 403), "key"],
    ["404 of another kind (no such route)", () => problem("not_found", 404), "error"],
    ["429 rate_limited", () => problem("rate_limited", 429), "error"],
    ["503 data_not_ready", () => problem("data_not_ready", 503), "error"],
    ["200 with HTML", () => new Response("<html>", { status: 200 }), "error"],
    ["200 without prices", () => json({ data: { name: "x" } }), "error"],
    ["a network failure", () => Promise.reject(new TypeError("Failed to fetch")), "error"],
  ];
  for (const [name, answer, state] of cases) {
    test(`${name} → ${state}`, async () => {
      document.body.innerHTML = "";
      const { fn } = fakeFetch(answer);
      const el = widget("777");
      createRuntime(BASE, fn).scan(document);
      await waitFor(() => stateOf(el) !== "loading", "a state");
      expect(stateOf(el)).toBe(state);
      expect(el.shadowRoot!.querySelector("table")).toBeNull();
    });
  }

  test("a secret key is refused and never sent", async () => {
    document.body.innerHTML = "";
    const { fn, calls } = fakeFetch(byBarcode);
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const el = widget("888", "sk_live_" + "c".repeat(32));
      createRuntime(BASE, fn).scan(document);
      expect(stateOf(el)).toBe("key");
      await Bun.sleep(20);
      expect(calls).toHaveLength(0);
      expect(errors).toHaveLength(1);
    } finally {
      console.error = original;
    }
  });

  test("a missing key or a barcode that is not digits settles without a request", async () => {
    document.body.innerHTML = "";
    const { fn, calls } = fakeFetch(byBarcode);
    const noKey = widget("999", "");
    const badBarcode = widget("12ab");
    createRuntime(BASE, fn).scan(document);
    expect(stateOf(noKey)).toBe("key");
    expect(stateOf(badBarcode)).toBe("not_found");
    await Bun.sleep(20);
    expect(calls).toHaveLength(0);
  });

  test("429 rate_limited with Retry-After: retried after the wait, the retries spaced to the announced rate", async () => {
    const clock = 1_000_000;
    const sleeps: number[] = [];
    const refused = new Set<string>();
    const client = new DataClient(
      BASE,
      async (url) => {
        const barcode = new URL(url).searchParams.get("barcode")!;
        // The first answer to every barcode is a refusal (the page had more products than the burst).
        if (!refused.has(barcode)) {
          refused.add(barcode);
          const res = problem("rate_limited", 429);
          res.headers.set("retry-after", "2");
          res.headers.set("x-ratelimit-limit", "120");
          return res;
        }
        return json({ data: sampleData({ barcode }), meta: {} });
      },
      async (ms) => void sleeps.push(ms),
      () => clock, // the three refusals arrive at the same moment
    );
    const results = await Promise.all(["1", "2", "3"].map((b) => client.load(b, PK)));
    expect(results.map((r) => r.kind)).toEqual(["ok", "ok", "ok"]);
    expect(sleeps).toEqual([2000, 2500, 3000]); // Retry-After, then one every 60000/120 ms
  });

  test("429 quota_exceeded, or a rate limit that stays, ends in the error state", async () => {
    const sleeps: number[] = [];
    const always = (code: string) => async () => {
      const res = problem(code, 429);
      res.headers.set("retry-after", "1");
      return res;
    };
    const quota = new DataClient(BASE, always("quota_exceeded"), async (ms) => void sleeps.push(ms));
    expect((await quota.load("1", PK)).kind).toBe("error");
    expect(sleeps).toEqual([]);
    const limited = new DataClient(BASE, always("rate_limited"), async (ms) => void sleeps.push(ms));
    expect((await limited.load("1", PK)).kind).toBe("error");
    expect(sleeps.length).toBe(8);
  });

  test("after a network failure a later element tries again; a settled answer is reused", async () => {
    let fail = true;
    const client = new DataClient(BASE, async () => {
      if (fail) throw new TypeError("offline");
      return json({ data: sampleData(), meta: {} });
    });
    expect((await client.load("1", PK)).kind).toBe("error");
    fail = false;
    const second = client.load("1", PK);
    expect((await second).kind).toBe("ok");
    expect(client.load("1", PK)).toBe(second);
  });
});

describe("never breaks the page", () => {
  test("an element that refuses a shadow root (as <img> does in browsers) is left alone, others still render", async () => {
    document.body.innerHTML = "";
    const { fn } = fakeFetch(byBarcode);
    const refusing = widget("1");
    refusing.attachShadow = () => {
      throw new DOMException("This element does not support attachShadow", "NotSupportedError");
    };
    const good = widget("1");
    const runtime = createRuntime(BASE, fn);
    expect(() => runtime.scan(document)).not.toThrow();
    await waitFor(() => stateOf(good) === "ok", "rows");
    expect(refusing.shadowRoot).toBeNull();
  });

  test("an element with someone else's shadow root is not touched", () => {
    document.body.innerHTML = "";
    const el = widget("1");
    const theirs = el.attachShadow({ mode: "open" });
    theirs.innerHTML = "<p>theirs</p>";
    createRuntime(BASE, fakeFetch(byBarcode).fn).scan(document);
    expect(theirs.innerHTML).toBe("<p>theirs</p>");
  });

  test("nothing is written outside the widget elements", async () => {
    document.head.innerHTML = "<title>shop</title>";
    document.body.innerHTML = "<main><h1>Product</h1></main>";
    const el = widget("1");
    const before = document.documentElement.outerHTML;
    createRuntime(BASE, fakeFetch(byBarcode).fn).scan(document);
    await waitFor(() => stateOf(el) === "ok", "rows");
    expect(document.documentElement.outerHTML).toBe(before);
    expect(document.querySelectorAll("style")).toHaveLength(0);
  });
});

describe("service base URL", () => {
  test("falls back to the script tag that loaded /widget/v1/loader.js, keeping a path prefix", () => {
    document.head.innerHTML =
      '<script src="https://cdn.example/other.js"></script><script src="https://prices.example/sub/widget/v1/loader.js?v=1" async></script>';
    expect(serviceBase(document)).toBe("https://prices.example/sub");
  });

  test("a relative src resolves against the page", () => {
    document.head.innerHTML = '<script src="/widget/v1/loader.js"></script>';
    expect(serviceBase(document)).toBe("https://shop.example");
  });

  test("no loader script: no base", () => {
    document.head.innerHTML = "";
    expect(serviceBase(document)).toBeNull();
  });
});

const MASKED = `${PK.slice(0, 12)}…${PK.slice(-4)}`;
let warnings: string[] = [];

const widgets = (barcodes: string[], key = PK) => barcodes.map((barcode) => widget(barcode, key));

/** The quiet message a widget shows (the page sees no cause). */
const shown = (el: Element) => el.shadowRoot!.querySelector(".st")!.textContent;

/**
 * An empty widget says why in the browser console — a wrong key, a key not allowed on this
 * origin, an unknown product, an unreachable server — in one console.warn per cause (however many
 * widgets share it), while the page shows the same quiet message as before.
 */
describe("one console.warn per cause, the same quiet message on the page", () => {
  beforeEach(() => {
    warnings = [];
    document.body.innerHTML = "";
    console.warn = (...parts: unknown[]) => void warnings.push(parts.join(" "));
  });
  afterEach(() => {
    console.warn = () => {};
  });
  const t = STRINGS.he;
  const cases: [string, (url: URL) => Response | Promise<Response>, string, string, string][] = [
    ["a wrong key (401)", () => problem("invalid_api_key", 401), "key", t.key, `mehir widget: key ${MASKED} is unknown or revoked (401 invalid_api_key): create a publishable key in the portal (${BASE}/portal/)`],
    ["a key not allowed on this origin (403)", () => problem("origin_not_allowed", 403), "key", t.key, `mehir widget: key ${MASKED} is not allowed on https://shop.example: add this origin to the key's allowed origins in the portal (${BASE}/portal/)`],
    ["an unknown product (404)", (url) => (url.searchParams.get("barcode") === "7290000000001" ? problem("product_not_found", 404) : json({ data: sampleData({}), meta: {} })), "not_found", t.notFound, "mehir widget: no product with barcode 7290000000001 (404): check data-barcode"],
    ["an unreachable server", () => Promise.reject(new TypeError("Failed to fetch")), "error", t.error, `mehir widget: cannot reach ${BASE} (the server is down, or the loader's address is wrong, or a blocker stopped it)`],
    ["a server error", () => problem("data_not_ready", 503), "error", t.error, `mehir widget: ${BASE} answered 503 data_not_ready`],
  ];
  for (const [name, answer, state, message, warning] of cases) {
    test(name, async () => {
      const els = widgets(["7290000000001", "7290000000001", "7290000000002"]);
      createRuntime(BASE, fakeFetch(answer).fn).scan(document);
      await waitFor(() => els.every((el) => stateOf(el) !== "loading"), "every widget settled");
      expect(stateOf(els[0]!)).toBe(state);
      expect(shown(els[0]!)).toBe(message);
      expect(shown(els[0]!)).not.toContain("mehir widget");
      expect(warnings).toEqual([warning]);
    });
  }

  test("found products warn nothing", async () => {
    const els = widgets(["7290000000003"]);
    createRuntime(BASE, fakeFetch(() => json({ data: sampleData({}), meta: {} })).fn).scan(document);
    await waitFor(() => stateOf(els[0]!) === "ok", "rows");
    expect(warnings).toEqual([]);
  });

  test("a missing key and a malformed barcode say so without a request", async () => {
    const { fn, calls } = fakeFetch(() => json({ data: sampleData({}), meta: {} }));
    const [noKey] = widgets(["7290000000004"], "");
    widget("12ab", PK);
    createRuntime(BASE, fn).scan(document);
    expect(stateOf(noKey!)).toBe("key");
    expect(warnings).toEqual(["mehir widget: data-api-key is missing: create a publishable key in the portal", 'mehir widget: data-barcode "12ab" is not a barcode (digits)']);
    expect(calls).toHaveLength(0);
  });
});
