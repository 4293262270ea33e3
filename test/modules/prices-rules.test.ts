import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { HistoryResponse, PricesResponse } from "../../src/modules/prices/model.ts";
import { resolveCity } from "../../src/geo/geo.ts";

// Domain rules of /prices/ and its history on a hand-made fixture (now = 2026-11-22T12:00+02:00).
// Milk, 1000 ml, per chain:
//   shufersal  s1 תל אביב-יפו 6.90, s2 חיפה 6.90, s3 אילת 5.90 (VAT-free, left out of the chain figures)
//   osher-ad   o1 ירושלים 6.90                       (ties Shufersal: אושר עד sorts before שופרסל)
//   victory    v1 חיפה 6.50, collected 2024-12-31    (VAT 17 %)
//   yochananof y1 אילת 6.00                          (sold only in Eilat: priced from there, VAT-free)
//   rami-levy  r1 no city 7.00, r2 "כביש 6" 7.20      (no known city/region → null)
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";

function rawStore(slug: string, code: string, city: string | null): number {
  return (
    ctx.db.prices
      .query(
        `INSERT INTO stores (chain_id, chain_code, store_code, name, city, region, prices_at)
         VALUES (?, (SELECT code FROM chain_codes WHERE chain_id = ? LIMIT 1), ?, ?, ?, NULL, '2026-11-22T05:00:00+02:00') RETURNING id`,
      )
      .get(f.chainId(slug), f.chainId(slug), code, `סניף ${code}`, city) as { id: number }
  ).id;
}

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { city: "תל אביב-יפו", region: "tel-aviv" });
  const s2 = f.store("shufersal", "2", { city: "חיפה", region: "haifa" });
  const s3 = f.store("shufersal", "3", { city: "אילת", region: "south" });
  const o1 = f.store("osher-ad", "1", { city: "ירושלים", region: "jerusalem", pricesAt: "2026-11-21T06:00:00+02:00" });
  const v1 = f.store("victory", "1", { city: "חיפה", region: "haifa", pricesAt: "2024-12-31T23:59:59+02:00" });
  const y1 = f.store("yochananof", "1", { city: "אילת", region: "south" });
  const r1 = rawStore("rami-levy", "1", null);
  const r2 = rawStore("rami-levy", "2", "כביש 6");
  const milk = f.product(MILK, "חלב 3% 1 ליטר", { sizeAmount: 1000, sizeUnit: "ml" });
  for (const [store, price] of [[s1, 690], [s2, 690], [s3, 590], [o1, 690], [v1, 650], [y1, 600], [r1, 700], [r2, 720]] as const) f.price(store, milk, price);
  // History across the autumn DST switch (2026-10-25 02:00+03:00 → 01:00+02:00).
  f.history(v1, milk, "2025-01-01T00:10:00+02:00", 600);
  f.history(v1, milk, "2026-10-24T23:30:00+03:00", 640);
  f.history(v1, milk, "2026-10-25T01:30:00+02:00", 650);
  f.history(y1, milk, "2025-12-01T06:00:00+02:00", 650);
  f.history(y1, milk, "2026-02-01T06:00:00+02:00", 600);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);
const prices = async (query: string) => {
  const res = await call(`/api/v1/prices/?barcode=${MILK}${query}`);
  expect(res.status).toBe(200);
  const parsed = PricesResponse.safeParse(res.body);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return res.body.data.prices as any[];
};

describe("chain granularity", () => {
  test("order by effective price then Hebrew chain name; Eilat-only and pre-2025 VAT", async () => {
    const rows = await prices("");
    expect(rows.map((p) => [p.chain_id, p.price_ils, p.store_count, p.vat_included, p.vat_rate])).toEqual([
      ["yochananof", "6.00", 1, false, 0],
      ["victory", "6.50", 1, true, 0.17],
      ["osher-ad", "6.90", 1, true, 0.18],
      ["shufersal", "6.90", 2, true, 0.18],
      ["rami-levy", "7.00", 2, true, 0.18], // 7.00 and 7.20 once each: the lower
    ]);
    expect(rows[1].collected_at).toBe("2024-12-31T23:59:59+02:00");
    expect(rows[3]).toMatchObject({ min_price_ils: "6.90", max_price_ils: "6.90" }); // Eilat's 5.90 left out
    expect(rows[4]).toMatchObject({ min_price_ils: "7.00", max_price_ils: "7.20" });
    expect(rows[0]).toMatchObject({ price_per_measure_ils: "0.60", measure: "100ml", is_on_promotion: false });
    // The shortened entry: no store object at chain granularity.
    for (const r of rows) expect(r.store).toBeUndefined();
  });

  test("city and region narrow the stores a chain is priced over", async () => {
    const haifa = await prices(`&city=${encodeURIComponent("חיפה")}`);
    expect(haifa.map((p) => `${p.chain_id} ${p.price_ils} ${p.store_count}`)).toEqual(["victory 6.50 1", "shufersal 6.90 1"]);
    // Only Shufersal's Eilat store is in the south: the chain is then priced from it, VAT-free.
    const south = await prices("&region=south");
    expect(south.map((p) => [p.chain_id, p.price_ils, p.vat_included, p.vat_rate])).toEqual([
      ["shufersal", "5.90", false, 0],
      ["yochananof", "6.00", false, 0],
    ]);
  });
});

describe("store granularity", () => {
  test("every store, with city and region null (never empty) when unknown", async () => {
    const rows = await prices("&granularity=store");
    expect(rows.map((p) => `${p.chain_id}/${p.store.store_id} ${p.effective_price_ils}`)).toEqual([
      "shufersal/3 5.90",
      "yochananof/1 6.00",
      "victory/1 6.50",
      "osher-ad/1 6.90",
      "shufersal/1 6.90",
      "shufersal/2 6.90",
      "rami-levy/1 7.00",
      "rami-levy/2 7.20",
    ]);
    expect(rows[6].store).toEqual({ store_id: "1", branch_name: "סניף 1", city: null, region: null });
    expect(rows[7].store).toEqual({ store_id: "2", branch_name: "סניף 2", city: "כביש 6", region: null });
    expect(rows[0]).toMatchObject({ vat_included: false, vat_rate: 0, store: { city: "אילת", region: "south" } });
    expect(rows[2]).toMatchObject({ vat_included: true, vat_rate: 0.17 });
    for (const r of rows) {
      expect(r.granularity).toBe("store");
      expect(r.currency).toBe("ILS");
      expect(r.collected_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    }
  });

  test("a city in any common spelling, its English name or its CBS code", async () => {
    for (const city of ["תל אביב", 'ת"א', "תל-אביב יפו", "Tel Aviv", "5000"]) {
      const rows = await prices(`&granularity=store&city=${encodeURIComponent(city)}`);
      expect(rows.map((p) => `${p.chain_id}/${p.store.store_id}`)).toEqual(["shufersal/1"]);
    }
    const road = await prices(`&granularity=store&city=${encodeURIComponent(" כביש  6 ")}`);
    expect(road.map((p) => `${p.chain_id}/${p.store.store_id}`)).toEqual(["rami-levy/2"]);
  });
});

describe("errors", () => {
  test.each([
    ["&region=mars", "region"],
    ["&region=", "region"],
    ["&city=", "city"],
    ["&granularity=", "granularity"],
    [`&city=${"א".repeat(61)}`, "city"],
  ])("%s → 400 invalid_parameter", async (query, param) => {
    const { status, body } = await call(`/api/v1/prices/?barcode=${MILK}${query}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_parameter", param });
  });

  test("an unknown chain_id is 404 chain_not_found, on /prices/ and on its history", async () => {
    for (const path of [`/api/v1/prices/?barcode=${MILK}&chain_id=no-such-chain`, `/api/v1/prices/${MILK}/history/?chain_id=no-such-chain`]) {
      const { status, body, headers } = await call(path);
      expect(status).toBe(404);
      expect(headers.get("content-type")).toContain("application/problem+json");
      expect(body).toMatchObject({ code: "chain_not_found", param: "chain_id", status: 404 });
    }
  });
});

describe("history", () => {
  test("change points per chain by Israel date across a DST switch; an Eilat-only chain priced from Eilat", async () => {
    const { status, body } = await call(`/api/v1/prices/${MILK}/history/`);
    expect(status).toBe(200);
    expect(HistoryResponse.safeParse(body).success).toBe(true);
    expect(body.data.history.map((h: any) => `${h.chain_id} ${h.date} ${h.price_ils}`)).toEqual([
      "victory 2025-11-22 6.00", // the state on the window's first day
      "victory 2026-10-24 6.40", // 23:30 summer time
      "victory 2026-10-25 6.50", // 01:30 winter time, after the clocks went back
      "yochananof 2025-12-01 6.50",
      "yochananof 2026-02-01 6.00",
    ]);
    expect(body.meta).toMatchObject({ months: 12, records: 5, from: "2025-11-22" });
  });

  test("months=1 starts from each chain's price on the window's first day", async () => {
    const { body } = await call(`/api/v1/prices/${MILK}/history?months=1`);
    expect(body.data.history.map((h: any) => `${h.chain_id} ${h.date} ${h.price_ils}`)).toEqual([
      "victory 2026-10-22 6.00",
      "victory 2026-10-24 6.40",
      "victory 2026-10-25 6.50",
      "yochananof 2026-10-22 6.00",
    ]);
    expect(body.meta).toMatchObject({ months: 1, records: 4, from: "2026-10-22" });
  });
});

test("מישור אדומים (Ma'ale Adumim's industrial zone) resolves to a city with a region", () => {
  expect(resolveCity("מישור אדומים")).toEqual({ city: "מעלה אדומים", region: "judea-samaria" });
});
