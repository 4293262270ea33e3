import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";

const ctx = testApp(); // now = 2026-11-22T12:00+02:00
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1");
  const s2 = f.store("shufersal", "2");
  const r7 = f.store("rami-levy", "7");
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר");
  const bamba = f.product("7290000066004", "במבה 80 גרם");
  const gift = f.product("7290000066999", "כוס מתנה");
  f.promotion("shufersal", "A", { stores: [s1, s2], items: [milk, bamba, { product: gift, gift: true }], startsAt: "2026-11-20T00:00:00+02:00", minQty: 2, discountedPrice: 1000, description: "2 ב-10" });
  f.promotion("shufersal", "B", { stores: [s1], items: [milk], startsAt: "2026-11-10T00:00:00+02:00", clubOnly: true, discountRate: 0.2 });
  f.promotion("rami-levy", "C", { stores: [r7], items: [bamba], startsAt: "2026-11-15T00:00:00+02:00", coupon: true, discountedPrice: 300, minQty: 1 });
  f.promotion("rami-levy", "D", { stores: [r7], items: [bamba], startsAt: "2026-10-01T00:00:00+03:00", endsAt: "2026-11-01T00:00:00+02:00" }); // expired
  f.promotion("rami-levy", "E", { stores: [r7], items: [bamba], startsAt: "2026-12-01T00:00:00+02:00" }); // not started
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);

describe("GET /api/v1/promos/feed/", () => {
  test("active promotions, newest start first, with flags and items", async () => {
    const { status, body } = await call("/api/v1/promos/feed/");
    expect(status).toBe(200);
    expect(body.data.map((p: any) => p.promotion_id)).toEqual(["shufersal:A", "rami-levy:C", "shufersal:B"]);
    expect(body.data[0]).toMatchObject({
      chain_id: "shufersal",
      chain_name: "שופרסל",
      description: "2 ב-10",
      is_club_only: false,
      is_coupon: false,
      min_qty: 2,
      discounted_price_ils: "10.00",
      discount_rate: null,
      store_count: 2,
      item_count: 3,
      starts_at: "2026-11-20T00:00:00+02:00",
    });
    expect(body.data[0].items).toEqual([
      { barcode: "7290000066004", name: "במבה 80 גרם", is_gift: false },
      { barcode: "7290000066318", name: "חלב 3% 1 ליטר", is_gift: false },
      { barcode: "7290000066999", name: "כוס מתנה", is_gift: true },
    ]);
    expect(body.data[1]).toMatchObject({ is_coupon: true, is_club_only: false });
    expect(body.data[2]).toMatchObject({ is_club_only: true, discount_rate: 0.2 });
    expect(body.meta.next_cursor).toBeNull();
  });

  test("filters: chain_id, barcode, store_id, include_club", async () => {
    const ids = async (q: string) => (await call(`/api/v1/promos/feed?${q}`)).body.data.map((p: any) => p.promotion_id);
    expect(await ids("chain_id=rami-levy")).toEqual(["rami-levy:C"]);
    expect(await ids("barcode=07290000066318")).toEqual(["shufersal:A", "shufersal:B"]);
    expect(await ids("store_id=2")).toEqual(["shufersal:A"]);
    expect(await ids("include_club=false")).toEqual(["shufersal:A", "rami-levy:C"]);
  });

  test("pagination with limit=1", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { body } = await call(`/api/v1/promos/feed?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...body.data.map((p: any) => p.promotion_id));
      cursor = body.meta.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["shufersal:A", "rami-levy:C", "shufersal:B"]);
  });

  test("invalid parameters", async () => {
    for (const [q, param] of [["include_club=maybe", "include_club"], ["store_id=x", "store_id"], ["limit=500", "limit"], ["barcode=12ab", "barcode"]]) {
      const { status, body } = await call(`/api/v1/promos/feed?${q}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: "invalid_parameter", param });
    }
    const bad = await call("/api/v1/promos/feed?cursor=abc");
    expect(bad.body.code).toBe("invalid_cursor");
  });
});

describe("GET /api/v1/promos/feed/ edges", () => {
  test("an unknown chain_id is 404 chain_not_found", async () => {
    const { status, body } = await call("/api/v1/promos/feed?chain_id=no-such-chain");
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: "chain_not_found", param: "chain_id" });
  });

  test.each([["0"], ["101"], ["-1"], ["1.5"], ["ten"]])("limit=%s → 400 invalid_parameter", async (limit) => {
    const { status, body } = await call(`/api/v1/promos/feed?limit=${limit}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_parameter", param: "limit" });
  });

  test("limit=100 is allowed; a cursor from another query or an older data version is invalid_cursor", async () => {
    expect((await call("/api/v1/promos/feed?limit=100")).status).toBe(200);
    const first = await call("/api/v1/promos/feed?limit=1");
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const other = await call(`/api/v1/promos/feed?limit=1&chain_id=shufersal&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
    commitData(ctx.deps);
    const stale = await call(`/api/v1/promos/feed?limit=1&cursor=${cursor}`);
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
  });
});

describe("active now, exactly, across the autumn DST switch", () => {
  // On 2026-10-25 Israel's clocks go back from 02:00+03:00 to 01:00+02:00: the wall clock 01:30 happens twice.
  let clock = new Date("2026-10-24T22:40:00Z"); // 01:40+03:00, the first time round
  const dst = testApp({ now: () => clock });
  const g = new Fixture(dst.db.prices, dst.chainIds);
  let dstKey: Record<string, string>;

  beforeAll(async () => {
    const s = g.store("shufersal", "1");
    const p = g.product("7290000066318", "חלב");
    g.promotion("shufersal", "ENDS", { stores: [s], items: [p], startsAt: "2026-10-01T00:00:00+03:00", endsAt: "2026-10-25T01:45:00+03:00" }); // 22:45Z
    g.promotion("shufersal", "STARTS", { stores: [s], items: [p], startsAt: "2026-10-25T01:20:00+02:00", endsAt: "2026-10-31T00:00:00+02:00" }); // 23:20Z
    commitData(dst.deps);
    dstKey = newKey(dst.deps, "pro").headers;
  });

  const ids = async () => (await get(dst.app, "/api/v1/promos/feed/", dstKey)).body.data.map((p: any) => p.promotion_id);

  test("a promotion that ended at 01:45 summer time is gone at 01:30 winter time (45 minutes later)", async () => {
    clock = new Date("2026-10-24T22:40:00Z");
    expect(await ids()).toEqual(["shufersal:ENDS"]); // STARTS begins at 01:20 winter time, 40 minutes on
    clock = new Date("2026-10-24T23:30:00Z"); // 01:30+02:00
    expect(await ids()).toEqual(["shufersal:STARTS"]);
  });
});
