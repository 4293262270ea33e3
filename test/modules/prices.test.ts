import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";

// Hand-computed fixture: milk in 4 Shufersal stores (one in Eilat) and 2 Rami Levy stores.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { city: "תל אביב-יפו", region: "tel-aviv" });
  const s2 = f.store("shufersal", "2", { city: "חיפה", region: "haifa" });
  const s3 = f.store("shufersal", "3", { city: "ירושלים", region: "jerusalem" });
  const s4 = f.store("shufersal", "4", { city: "אילת", region: "south" });
  const r1 = f.store("rami-levy", "1", { city: "ירושלים", region: "jerusalem" });
  const r2 = f.store("rami-levy", "2", { city: "תל אביב-יפו", region: "tel-aviv" });
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  f.product("7290000000001", "לא נמכר בשום מקום");
  for (const [store, price] of [[s1, 690], [s2, 690], [s3, 720], [s4, 590], [r1, 650], [r2, 620]] as const) f.price(store, milk, price);
  f.promotion("rami-levy", "R1", { stores: [r1], items: [milk], minQty: 1, discountedPrice: 500 });
  f.promotion("rami-levy", "R2", { stores: [r2], items: [milk], minQty: 1, discountedPrice: 400, clubOnly: true });
  f.promotion("rami-levy", "R3", { stores: [r2], items: [milk], minQty: 1, discountedPrice: 300, coupon: true });
  f.promotion("rami-levy", "R4", { stores: [r2], items: [milk], minQty: 1, discountedPrice: 100, endsAt: "2026-11-01T00:00:00+02:00" });
  f.promotion("shufersal", "S1", { stores: [s1, s2], items: [milk], minQty: 2, discountedPrice: 1200 });
  // History (change-only rows per store).
  f.history(s1, milk, "2025-06-01T06:00:00+03:00", 650);
  f.history(s1, milk, "2026-03-10T06:00:00+02:00", 690);
  f.history(s2, milk, "2025-06-01T06:00:00+03:00", 650);
  f.history(s2, milk, "2026-03-12T06:00:00+02:00", 690);
  f.history(s3, milk, "2025-06-01T06:00:00+03:00", 700);
  f.history(s3, milk, "2026-05-01T06:00:00+03:00", 720);
  f.history(s4, milk, "2026-01-01T06:00:00+02:00", 590);
  f.history(r1, milk, "2026-08-01T06:00:00+03:00", 650);
  f.history(r2, milk, "2026-08-01T06:00:00+03:00", 620);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);

describe("GET /api/v1/prices/ at chain granularity", () => {
  test("one entry per chain with mode price, min/max, promotions open to all, sorted by effective price", async () => {
    const { status, body, headers } = await call("/api/v1/prices/?barcode=7290000066318");
    expect(status).toBe(200);
    expect(headers.get("content-type")).toContain("application/json");
    expect(body.data.barcode).toBe("7290000066318");
    expect(body.data.name).toBe("חלב 3% 1 ליטר");
    expect(body.data.prices.map((p: any) => p.chain_id)).toEqual(["rami-levy", "shufersal"]);
    const [rami, shufersal] = body.data.prices;
    // Rami Levy: shelf 6.50 and 6.20 tie → lower 6.20; effective 5.00 (R1) and 6.20 (club/coupon/expired ignored) tie → 5.00.
    expect(rami).toMatchObject({
      granularity: "chain",
      price_ils: "6.20",
      effective_price_ils: "5.00",
      min_price_ils: "6.20",
      max_price_ils: "6.50",
      store_count: 2,
      is_on_promotion: true,
      currency: "ILS",
      vat_included: true,
      vat_rate: 0.18,
      price_per_measure_ils: "0.50",
      measure: "100ml",
    });
    // Shufersal: Eilat store left out; 6.90, 6.90, 7.20 → 6.90; the 2-for-12 multi-buy does not change one unit.
    expect(shufersal).toMatchObject({ price_ils: "6.90", effective_price_ils: "6.90", min_price_ils: "6.90", max_price_ils: "7.20", store_count: 3, is_on_promotion: false });
    expect(shufersal.store).toBeUndefined();
    expect(shufersal.collected_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    expect(body.meta.data_updated_at).toBe("2026-11-22T05:00:00+02:00");
    expect(typeof body.meta.request_id).toBe("string");
  });

  test("trailing slash is optional and leading zeros are not significant", async () => {
    const { status, body } = await call("/api/v1/prices?barcode=007290000066318");
    expect(status).toBe(200);
    expect(body.data.barcode).toBe("7290000066318");
  });

  test("chain_id filter", async () => {
    const { body } = await call("/api/v1/prices/?barcode=7290000066318&chain_id=shufersal");
    expect(body.data.prices.map((p: any) => p.chain_id)).toEqual(["shufersal"]);
  });
});

describe("GET /api/v1/prices/ at store granularity", () => {
  test("every store, cheapest first, with the store object and Eilat's VAT rule", async () => {
    const { status, body } = await call("/api/v1/prices/?barcode=7290000066318&granularity=store");
    expect(status).toBe(200);
    const rows = body.data.prices.map((p: any) => [p.chain_id, p.store.store_id, p.effective_price_ils]);
    expect(rows).toEqual([
      ["rami-levy", "1", "5.00"],
      ["shufersal", "4", "5.90"],
      ["rami-levy", "2", "6.20"],
      ["shufersal", "1", "6.90"],
      ["shufersal", "2", "6.90"],
      ["shufersal", "3", "7.20"],
    ]);
    const eilat = body.data.prices[1];
    expect(eilat).toMatchObject({ granularity: "store", vat_included: false, vat_rate: 0, store: { city: "אילת", region: "south" } });
    expect(body.data.prices[0]).toMatchObject({ is_on_promotion: true, promotion_id: "rami-levy:R1", price_ils: "6.50" });
    expect(body.data.prices[2]).toMatchObject({ is_on_promotion: false, price_ils: "6.20" });
    expect(Object.keys(body.data.prices[0].store).sort()).toEqual(["branch_name", "city", "region", "store_id"]);
  });

  test("city and region filters", async () => {
    const haifa = await call(`/api/v1/prices/?barcode=7290000066318&granularity=store&city=${encodeURIComponent("חיפה")}`);
    expect(haifa.body.data.prices.map((p: any) => p.store.store_id)).toEqual(["2"]);
    const jerusalem = await call("/api/v1/prices/?barcode=7290000066318&granularity=store&region=jerusalem");
    expect(jerusalem.body.data.prices.map((p: any) => `${p.chain_id}/${p.store.store_id}`)).toEqual(["rami-levy/1", "shufersal/3"]);
  });
});

describe("GET /api/v1/prices/ errors", () => {
  test.each([
    ["/api/v1/prices/", "barcode"],
    ["/api/v1/prices/?barcode=abc", "barcode"],
    ["/api/v1/prices/?barcode=7290000066318&granularity=weekly", "granularity"],
    ["/api/v1/prices/?barcode=7290000066318&chain_id=BAD%20SLUG", "chain_id"],
  ])("%s → 400 invalid_parameter naming %s", async (path, param) => {
    const { status, body, headers } = await call(path);
    expect(status).toBe(400);
    expect(headers.get("content-type")).toContain("application/problem+json");
    expect(body).toMatchObject({ code: "invalid_parameter", param, status: 400 });
    expect(body.type).toContain("invalid_parameter");
    expect(typeof body.request_id).toBe("string");
  });

  test("unknown barcode → 404 product_not_found", async () => {
    const { status, body } = await call("/api/v1/prices/?barcode=1234567890123");
    expect(status).toBe(404);
    expect(body.code).toBe("product_not_found");
  });
});

describe("GET /api/v1/prices/{barcode}/history/", () => {
  test("change points per chain over 12 months (default), with the window's first day", async () => {
    const { status, body } = await call("/api/v1/prices/7290000066318/history/");
    expect(status).toBe(200);
    expect(body.data.history).toEqual([
      { chain_id: "rami-levy", chain_name: "רמי לוי", price_ils: "6.20", date: "2026-08-01" },
      { chain_id: "shufersal", chain_name: "שופרסל", price_ils: "6.50", date: "2025-11-22" },
      { chain_id: "shufersal", chain_name: "שופרסל", price_ils: "6.90", date: "2026-03-12" },
    ]);
    expect(body.meta).toMatchObject({ months: 12, records: 3, from: "2025-11-22" });
  });

  test("months=6 starts from the state on the window's first day; chain_id filters", async () => {
    const six = await call("/api/v1/prices/7290000066318/history?months=6");
    expect(six.body.data.history).toEqual([
      { chain_id: "rami-levy", chain_name: "רמי לוי", price_ils: "6.20", date: "2026-08-01" },
      { chain_id: "shufersal", chain_name: "שופרסל", price_ils: "6.90", date: "2026-05-22" },
    ]);
    const one = await call("/api/v1/prices/7290000066318/history?months=24&chain_id=shufersal");
    expect(one.body.data.history.map((h: any) => `${h.date} ${h.price_ils}`)).toEqual(["2025-06-01 6.50", "2026-03-12 6.90"]);
    expect(one.body.meta.months).toBe(24);
  });

  test.each([["0"], ["25"], ["x"], ["1.5"], ["0x10"], ["1e1"], ["%2B6"]])("months=%s → 400", async (months) => {
    const { status, body } = await call(`/api/v1/prices/7290000066318/history?months=${months}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_parameter", param: "months" });
  });

  test("unknown product → 404", async () => {
    const { status, body } = await call("/api/v1/prices/1111111111111/history/");
    expect(status).toBe(404);
    expect(body.code).toBe("product_not_found");
  });
});
