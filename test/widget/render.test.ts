import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GlobalRegistrator } from "@happy-dom/global-registrator";
import { createWrapper, paint, sortPrices } from "../../widget/render.ts";
import { formatPrice, formatUpdated } from "../../widget/format.ts";
import { isBarcode, readOptions } from "../../widget/options.ts";
import type { ViewState, WidgetOptions } from "../../widget/types.ts";
import { sampleData } from "../helpers/widget.ts";

// happy-dom only inside widget test files: registered globally it breaks Bun.serve elsewhere.
beforeAll(() => GlobalRegistrator.register({ url: "https://shop.example/product" }));
afterAll(() => GlobalRegistrator.unregister());

const BASE = "https://prices.example";
const he: WidgetOptions = { barcode: "7290000066318", key: "pk_live_x", limit: 5, lang: "he", theme: "light" };

function render(state: ViewState, options: WidgetOptions = he): HTMLElement {
  const wrapper = createWrapper(options);
  paint(wrapper, state, options, BASE);
  return wrapper;
}

const cells = (tr: Element) => [...tr.children].map((c) => c.textContent!.replace(/\s+/g, " ").trim());

describe("price table", () => {
  test("a real table: caption, column headers with scope, one row header per chain", () => {
    const w = render({ kind: "ok", data: sampleData() });
    const table = w.querySelector("table")!;
    expect(table.querySelector("caption")!.textContent).toBe("חלב 3% 1 ליטר");
    const heads = [...table.querySelectorAll("thead th")];
    expect(heads.map((th) => th.textContent)).toEqual(["רשת", "מחיר", "סניפים"]);
    expect(heads.every((th) => th.getAttribute("scope") === "col")).toBe(true);
    const rowHeads = [...table.querySelectorAll("tbody th")];
    expect(rowHeads).toHaveLength(4);
    expect(rowHeads.every((th) => th.getAttribute("scope") === "row")).toBe(true);
  });

  test("rows sorted by effective price, not by shelf price or server order", () => {
    const w = render({ kind: "ok", data: sampleData() });
    const order = [...w.querySelectorAll("tbody tr")].map((tr) => tr.getAttribute("data-chain"));
    // rami-levy 5.00 (shelf 6.20), yochananof 5.90, shufersal 6.90, victory 7.40
    expect(order).toEqual(["rami-levy", "yochananof", "shufersal", "victory"]);
  });

  test("equal prices sort by chain name", () => {
    const data = sampleData();
    const sorted = sortPrices(
      [
        { ...data.prices[0]!, chain_name: "ב", effective_price_ils: "5.00" },
        { ...data.prices[1]!, chain_name: "א", effective_price_ils: "5.00" },
      ],
      "he",
    );
    expect(sorted.map((p) => p.chain_name)).toEqual(["א", "ב"]);
  });

  test("the cheapest row is marked in text and style, and only it", () => {
    const w = render({ kind: "ok", data: sampleData() });
    const rows = [...w.querySelectorAll("tbody tr")];
    expect(rows[0]!.classList.contains("best")).toBe(true);
    expect(rows[0]!.querySelector("th")!.textContent).toContain("הזול ביותר");
    for (const r of rows.slice(1)) {
      expect(r.classList.contains("best")).toBe(false);
      expect(r.textContent).not.toContain("הזול ביותר");
    }
  });

  test("ties for the cheapest price mark every tied chain", () => {
    const data = sampleData();
    data.prices[3]!.effective_price_ils = "5.00";
    const w = render({ kind: "ok", data });
    expect(w.querySelectorAll("tr.best")).toHaveLength(2);
  });

  test("a promotion shows a badge and the struck-through regular price", () => {
    const w = render({ kind: "ok", data: sampleData() });
    const rami = w.querySelector('tr[data-chain="rami-levy"]')!;
    expect(rami.querySelector(".bp")!.textContent).toBe("מבצע");
    expect(rami.querySelector("del")!.textContent).toBe(formatPrice("6.20", "he"));
    expect(rami.querySelector(".sr")!.textContent).toContain("מחיר רגיל");
    const shufersal = w.querySelector('tr[data-chain="shufersal"]')!;
    expect(shufersal.querySelector(".bp")).toBeNull();
    expect(shufersal.querySelector("del")).toBeNull();
  });

  test("beside a promotion, the lowest price of the last 30 days (issue 41 part 4)", () => {
    const data = sampleData();
    data.prices.find((p) => p.chain_id === "rami-levy")!.lowest_price_30d_ils = "5.90";
    const w = render({ kind: "ok", data });
    expect(w.querySelector('tr[data-chain="rami-levy"] .low')!.textContent).toBe(`הנמוך ב-30 יום: ${formatPrice("5.90", "he")}`);
    // No promotion, no reference shown.
    data.prices.find((p) => p.chain_id === "shufersal")!.lowest_price_30d_ils = "6.00";
    expect(render({ kind: "ok", data }).querySelector('tr[data-chain="shufersal"] .low')).toBeNull();
  });

  test("a suspect price is listed last, says so, and is never marked cheapest (issue 41 part 3)", () => {
    const data = sampleData();
    const victory = data.prices.find((p) => p.chain_id === "victory")!;
    victory.effective_price_ils = "0.01";
    victory.price_ils = "0.01";
    victory.suspect = true;
    const w = render({ kind: "ok", data });
    const rows = [...w.querySelectorAll("tbody tr")];
    expect(rows.at(-1)!.getAttribute("data-chain")).toBe("victory");
    expect(rows.at(-1)!.classList.contains("best")).toBe(false);
    expect(rows.at(-1)!.querySelector(".bs")!.textContent).toBe("ייתכן שגוי");
    expect(rows[0]!.classList.contains("best")).toBe(true);
  });

  test("loose produce sold by weight says per kg (issue 41 part 8)", () => {
    const data = sampleData();
    for (const p of data.prices) p.sold_by = "kg";
    expect(render({ kind: "ok", data }).querySelector("tbody tr .u")!.textContent).toBe(" לק״ג");
    expect(render({ kind: "ok", data }, { ...he, lang: "en" }).querySelector("tbody tr .u")!.textContent).toBe(" per kg");
  });

  test("prices in shekels via Intl.NumberFormat, isolated with <bdi>", () => {
    const w = render({ kind: "ok", data: sampleData() });
    const price = w.querySelector('tr[data-chain="yochananof"] bdi.p')!.textContent!;
    expect(price).toBe(new Intl.NumberFormat("he-IL", { style: "currency", currency: "ILS" }).format(5.9));
    expect(price).toContain("₪");
    expect(price).toContain("5.90");
    expect(cells(w.querySelector('tr[data-chain="yochananof"]')!)[2]).toBe("1");
  });

  test("Hebrew is right-to-left, English left-to-right with English words", () => {
    const hew = render({ kind: "ok", data: sampleData() });
    expect(hew.getAttribute("dir")).toBe("rtl");
    expect(hew.getAttribute("lang")).toBe("he");
    const en = render({ kind: "ok", data: sampleData() }, { ...he, lang: "en" });
    expect(en.getAttribute("dir")).toBe("ltr");
    expect([...en.querySelectorAll("thead th")].map((th) => th.textContent)).toEqual(["Chain", "Price", "Stores"]);
    expect(en.querySelector("tr.best th")!.textContent).toContain("Cheapest");
    expect(en.querySelector('tr[data-chain="rami-levy"] .bp')!.textContent).toBe("Sale");
  });

  test("English names chains in English (sorted by the name shown); Hebrew when the answer has none", () => {
    const prices = sampleData().prices.map((p) => ({ ...p, effective_price_ils: "5.00" }));
    const english: Record<string, string> = { shufersal: "Shufersal", victory: "Victory", "rami-levy": "Rami Levy" }; // yochananof: none
    const data = sampleData({ prices: prices.map((p) => (english[p.chain_id] ? { ...p, chain_name_en: english[p.chain_id] } : p)) });
    const en = render({ kind: "ok", data }, { ...he, lang: "en" });
    const names = [...en.querySelectorAll("tbody th")].map((th) => th.firstChild!.textContent);
    expect(names).toEqual(["Rami Levy", "Shufersal", "Victory", "יוחננוף"]);
    const hew = render({ kind: "ok", data });
    expect([...hew.querySelectorAll("tbody th")].map((th) => th.firstChild!.textContent)).not.toContain("Shufersal");
  });

  test("data-limit cuts the rows and says how many chains are left", () => {
    const w = render({ kind: "ok", data: sampleData() }, { ...he, limit: 2 });
    expect(w.querySelectorAll("tbody tr")).toHaveLength(2);
    expect(w.querySelector(".more")!.textContent).toBe("ועוד 2 רשתות");
    const all = render({ kind: "ok", data: sampleData() });
    expect(all.querySelector(".more")).toBeNull();
  });

  test("footer: updated time in Israel time and a link to the service docs", () => {
    const w = render({ kind: "ok", data: sampleData() });
    const footer = w.querySelector(".ft")!;
    expect(formatUpdated("2026-11-22T05:30:00+02:00", "he")).toMatch(/22.*11.*05:30/);
    expect(footer.textContent).toContain("עודכן " + formatUpdated("2026-11-22T05:30:00+02:00", "he"));
    const link = footer.querySelector("a")!;
    expect(link.getAttribute("href")).toBe("https://prices.example/docs");
    expect(link.getAttribute("rel")).toBe("noopener");
  });

  test("no updated time when the data has none", () => {
    const w = render({ kind: "ok", data: sampleData({ data_updated_at: null }) });
    expect(w.querySelector(".ft")!.textContent).not.toContain("עודכן");
  });

  test("names are text, never markup", () => {
    const data = sampleData({ name: '<img src=x onerror="alert(1)">' });
    data.prices[0]!.chain_name = "<b>bold</b>";
    const w = render({ kind: "ok", data });
    expect(w.querySelector("img")).toBeNull();
    expect(w.querySelector("b")).toBeNull();
    expect(w.querySelector("caption")!.textContent).toBe('<img src=x onerror="alert(1)">');
  });

  test("themes are classes on the wrapper", () => {
    expect(createWrapper({ ...he, theme: "dark" }).className).toBe("w dark");
    expect(createWrapper({ ...he, theme: "auto" }).className).toBe("w auto");
  });
});

describe("states", () => {
  test("loading is busy and says so", () => {
    const w = render({ kind: "loading" });
    expect(w.getAttribute("aria-busy")).toBe("true");
    expect(w.getAttribute("data-state")).toBe("loading");
    expect(w.textContent).toBe("טוען מחירים…");
    expect(w.getAttribute("aria-live")).toBe("polite");
  });

  test("unknown product, invalid key, network error and no prices each have their own message", () => {
    const texts = new Set<string>();
    for (const [kind, expected] of [
      ["not_found", "המוצר לא נמצא ברשתות."],
      ["key", "מפתח הווידג׳ט אינו תקין או אינו מורשה באתר זה."],
      ["error", "לא ניתן לטעון מחירים כרגע."],
    ] as const) {
      const w = render({ kind } as ViewState);
      expect(w.getAttribute("data-state")).toBe(kind);
      expect(w.getAttribute("aria-busy")).toBe("false");
      expect(w.querySelector("table")).toBeNull();
      expect(w.textContent).toBe(expected);
      texts.add(w.textContent!);
    }
    const empty = render({ kind: "ok", data: sampleData({ prices: [], cheapest_chain_id: null }) });
    expect(empty.getAttribute("data-state")).toBe("empty");
    expect(empty.querySelector("table")).toBeNull();
    texts.add(empty.textContent!);
    expect(texts.size).toBe(4);
  });

  test("a later state replaces the loading one", () => {
    const wrapper = createWrapper(he);
    paint(wrapper, { kind: "loading" }, he, BASE);
    paint(wrapper, { kind: "ok", data: sampleData() }, he, BASE);
    expect(wrapper.textContent).not.toContain("טוען");
    expect(wrapper.querySelectorAll("table")).toHaveLength(1);
  });
});

describe("options", () => {
  function el(attrs: Record<string, string>): Element {
    const div = document.createElement("div");
    for (const [k, v] of Object.entries(attrs)) div.setAttribute(k, v);
    return div;
  }

  test("data-chain-id names a chain-internal item; generic product ids are barcodes too", () => {
    expect(readOptions(el({ "data-barcode": "4087", "data-chain-id": "rami-levy", "data-api-key": "pk_live_k" })).chainId).toBe("rami-levy");
    expect(readOptions(el({ "data-barcode": "4087", "data-chain-id": "Not a slug", "data-api-key": "pk_live_k" })).chainId).toBeUndefined();
    expect(isBarcode("g-tomatoes")).toBe(true);
    expect(isBarcode("g-")).toBe(false);
  });

  test("defaults: 5 rows, Hebrew, light", () => {
    expect(readOptions(el({ "data-barcode": " 729 ", "data-api-key": "pk_live_k" }))).toEqual({
      barcode: "729",
      key: "pk_live_k",
      limit: 5,
      lang: "he",
      theme: "light",
    });
  });

  test("given values, and nonsense falling back to defaults", () => {
    expect(readOptions(el({ "data-limit": "3", "data-lang": "EN", "data-theme": "dark" }))).toMatchObject({ limit: 3, lang: "en", theme: "dark" });
    expect(readOptions(el({ "data-limit": "0", "data-lang": "fr", "data-theme": "neon" }))).toMatchObject({ limit: 5, lang: "he", theme: "light" });
    expect(readOptions(el({ "data-limit": "1000" })).limit).toBe(50);
  });
});
