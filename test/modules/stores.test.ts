import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { loadSettings } from "../../src/config.ts";
import { StoresResponse } from "../../src/modules/stores/model.ts";
import { BasketResponse } from "../../src/modules/basket/model.ts";

// Tel Aviv's centre (the locality table) and stores around it: two with published coordinates
// (Dizengoff Center 1.29 km, Ramat Aviv 5.94 km), two placed at their city centre (Tel Aviv
// itself 0 km, Ramat Gan 2.74 km), one in Haifa (~81 km), an online-only one and one in an
// unknown city (no position).
const TLV = "32.0853,34.7818";
const ctx = testApp({ settings: loadSettings({ MEHIR_RATE_FREE: "100000", MEHIR_RATE_PRO: "100000" }) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";
const ids: Record<string, number> = {};

function place(id: number, lat: number, lon: number, extra: { storeType?: number; address?: string } = {}) {
  ctx.db.prices.run("UPDATE stores SET latitude = ?, longitude = ?, store_type = ?, address = ? WHERE id = ?", [lat, lon, extra.storeType ?? 1, extra.address ?? null, id]);
}

beforeAll(async () => {
  ids.dizengoff = f.store("shufersal", "10", { name: "דיזנגוף סנטר", city: "תל אביב-יפו", region: "tel-aviv" });
  place(ids.dizengoff, 32.0753, 34.7749, { address: "דיזנגוף 50" });
  ids.ramatAviv = f.store("shufersal", "11", { name: "רמת אביב", city: "תל אביב-יפו", region: "tel-aviv" });
  place(ids.ramatAviv, 32.135, 34.805);
  ids.tlvCentre = f.store("rami-levy", "2", { name: "רמי לוי ת\"א", city: "תל אביב-יפו", region: "tel-aviv" });
  ids.ramatGan = f.store("rami-levy", "3", { name: "רמי לוי ר\"ג", city: "רמת גן", region: "tel-aviv" });
  ids.haifa = f.store("shufersal", "20", { city: "חיפה", region: "haifa" });
  ids.online = f.store("shufersal", "90", { name: "אונליין", city: "תל אביב-יפו", region: "tel-aviv" });
  ctx.db.prices.run("UPDATE stores SET store_type = 2 WHERE id = ?", [ids.online]);
  ids.nowhere = f.store("rami-levy", "9", { city: "כפר נידח", region: "" });
  const milk = f.product(MILK, "חלב 3%");
  const bread = f.product("7290000066004", "לחם");
  for (const [store, price] of [["dizengoff", 700], ["ramatAviv", 650], ["tlvCentre", 690], ["ramatGan", 600], ["haifa", 500], ["online", 400]] as const) f.price(ids[store]!, milk, price);
  f.price(ids.dizengoff, bread, 800);
  f.price(ids.tlvCentre, bread, 750);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);

describe("GET /api/v1/stores/", () => {
  test("near: stores within the radius, nearest first, with distance, coordinates (approximate when from the city centre) and status", async () => {
    const { status, body } = await call(`/api/v1/stores/?near=${TLV}&radius_km=3`);
    expect(status).toBe(200);
    expect(StoresResponse.safeParse(body).success).toBe(true);
    expect(body.data.map((s: any) => [s.chain_id, s.store_id, s.distance_km])).toEqual([
      ["rami-levy", "2", 0], // Tel Aviv's centre
      ["shufersal", "90", 0], // online-only, listed with its type
      ["shufersal", "10", 1.29],
      ["rami-levy", "3", 2.74], // Ramat Gan's centre
    ]);
    expect(body.data[2]).toEqual({
      store_id: "10",
      chain_id: "shufersal",
      chain_name: "שופרסל",
      branch_name: "דיזנגוף סנטר",
      address: "דיזנגוף 50",
      city: "תל אביב-יפו",
      region: "tel-aviv",
      zip: null,
      store_type: "physical",
      status: "open",
      coordinates: { lat: 32.0753, lon: 34.7749, approximate: false },
      distance_km: 1.29,
    });
    expect(body.data[0].coordinates).toEqual({ lat: 32.0853, lon: 34.7818, approximate: true });
    expect(body.data[1].store_type).toBe("online");
    expect(body.meta.next_cursor).toBeNull();
  });

  test("radius defaults to 5 km; up to 50 km reaches no further than 50 km", async () => {
    const five = await call(`/api/v1/stores/?near=${TLV}`);
    expect(five.body.data.map((s: any) => s.store_id)).toEqual(["2", "90", "10", "3"]); // Ramat Aviv is 5.94 km away
    const fifty = await call(`/api/v1/stores/?near=${TLV}&radius_km=50&limit=100`);
    expect(fifty.body.data.map((s: any) => s.store_id)).toEqual(["2", "90", "10", "3", "11"]); // Haifa is ~81 km away
  });

  test("chain_id and city filters, with or without near; pages by cursor", async () => {
    const shufersal = await call(`/api/v1/stores/?near=${TLV}&radius_km=10&chain_id=shufersal`);
    expect(shufersal.body.data.map((s: any) => s.store_id)).toEqual(["90", "10", "11"]);
    const ramatGan = await call(`/api/v1/stores/?city=${encodeURIComponent("רמת גן")}`);
    expect(ramatGan.body.data.map((s: any) => s.store_id)).toEqual(["3"]);
    expect(ramatGan.body.data[0].distance_km).toBeUndefined();
    // Without near: every store, by chain then store code; the one in an unknown city has no coordinates.
    const all = await call("/api/v1/stores/?limit=3");
    expect(all.body.data.map((s: any) => `${s.chain_id}/${s.store_id}`)).toEqual(["rami-levy/2", "rami-levy/3", "rami-levy/9"]);
    expect(all.body.data[2]).toMatchObject({ city: "כפר נידח", region: null, coordinates: null });
    const next = await call(`/api/v1/stores/?limit=3&cursor=${all.body.meta.next_cursor}`);
    expect(next.body.data.map((s: any) => `${s.chain_id}/${s.store_id}`)).toEqual(["shufersal/10", "shufersal/11", "shufersal/20"]);
    const last = await call(`/api/v1/stores/?limit=3&cursor=${next.body.meta.next_cursor}`);
    expect(last.body.data.map((s: any) => s.store_id)).toEqual(["90"]);
    expect(last.body.meta.next_cursor).toBeNull();
    const wrong = await call(`/api/v1/stores/?limit=5&cursor=${all.body.meta.next_cursor}`);
    expect([wrong.status, wrong.body.code]).toEqual([400, "invalid_cursor"]);
  });

  test("bad input: near malformed or outside Israel, radius out of range or alone → 400 naming it; unknown chain → 404", async () => {
    const cases: [string, number, string, string?][] = [
      ["near=32.08", 400, "invalid_parameter", "near"],
      ["near=abc,def", 400, "invalid_parameter", "near"],
      ["near=51.5072,-0.1276", 400, "invalid_parameter", "near"],
      ["near=32.08,34.78,1", 400, "invalid_parameter", "near"],
      [`near=${TLV}&radius_km=0`, 400, "invalid_parameter", "radius_km"],
      [`near=${TLV}&radius_km=0.05`, 400, "invalid_parameter", "radius_km"],
      [`near=${TLV}&radius_km=50.5`, 400, "invalid_parameter", "radius_km"],
      [`near=${TLV}&radius_km=ten`, 400, "invalid_parameter", "radius_km"],
      ["radius_km=5", 400, "invalid_parameter", "radius_km"],
      ["chain_id=no-such-chain", 404, "chain_not_found"],
    ];
    for (const [query, status, code, param] of cases) {
      const res = await call(`/api/v1/stores/?${query}`);
      expect([query, res.status, res.body.code, res.body.param]).toEqual([query, status, code, param ?? "chain_id"]);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
  });
});

describe("near on /prices/ and the basket", () => {
  test("/prices/ at store granularity: only open walk-in stores within the radius, each with distance_km, sorted by price as always", async () => {
    const { body } = await call(`/api/v1/prices/?barcode=${MILK}&granularity=store&near=${TLV}&radius_km=3`);
    expect(body.data.prices.map((p: any) => [p.store.store_id, p.price_ils, p.distance_km])).toEqual([
      ["3", "6.00", 2.74],
      ["2", "6.90", 0],
      ["10", "7.00", 1.29],
    ]); // the online store (4.00) and Ramat Aviv (6.50, 5.94 km) are not in
  });

  test("/prices/ at chain granularity: the chain figures over the stores within the radius", async () => {
    const { body } = await call(`/api/v1/prices/?barcode=${MILK}&near=${TLV}&radius_km=3`);
    expect(body.data.prices.map((p: any) => [p.chain_id, p.price_ils, p.store_count])).toEqual([
      ["rami-levy", "6.00", 2],
      ["shufersal", "7.00", 1],
    ]);
    const wide = await call(`/api/v1/prices/?barcode=${MILK}&near=${TLV}&radius_km=50`);
    expect(wide.body.data.prices.map((p: any) => [p.chain_id, p.min_price_ils, p.max_price_ils, p.store_count])).toEqual([
      ["rami-levy", "6.00", "6.90", 2],
      ["shufersal", "6.50", "7.00", 2],
    ]);
  });

  test("the basket: each chain's cheapest open store within the radius, named with its distance", async () => {
    const basket = async (body: unknown) => {
      const res = await ctx.app.handle(
        new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { "content-type": "application/json", ...key }, body: JSON.stringify(body) }),
      );
      return { status: res.status, body: (await res.json()) as any };
    };
    const { status, body } = await basket({ items: [{ barcode: MILK, quantity: 1 }, { barcode: "7290000066004", quantity: 1 }], near: TLV, radius_km: 3 });
    expect(status).toBe(200);
    expect(BasketResponse.safeParse(body).success).toBe(true);
    expect(body.data.stores.map((s: any) => [s.chain_id, s.store.store_id, s.store.distance_km, s.total_ils, s.items_found])).toEqual([
      ["rami-levy", "2", 0, "14.40", 2], // both items at Tel Aviv's centre store (6.90 + 7.50)
      ["shufersal", "10", 1.29, "15.00", 2],
    ]);
    // Within 50 km: Shufersal Ramat Aviv has milk only at 6.50; its Dizengoff store still has both items.
    const far = await basket({ items: [{ barcode: MILK, quantity: 1 }], near: TLV, radius_km: 50 });
    expect(far.body.data.stores.map((s: any) => [s.chain_id, s.store.store_id, s.total_ils])).toEqual([
      ["rami-levy", "3", "6.00"],
      ["shufersal", "11", "6.50"],
    ]);
    const bad = await basket({ items: [{ barcode: MILK, quantity: 1 }], near: "40.7,-74.0" });
    expect([bad.status, bad.body.code, bad.body.param]).toEqual([400, "invalid_parameter", "near"]);
    const alone = await basket({ items: [{ barcode: MILK, quantity: 1 }], radius_km: 3 });
    expect([alone.status, alone.body.param]).toEqual([400, "radius_km"]);
  });
});
