import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";

// Conditional GET on the read endpoints: ETag, If-None-Match → 304, Last-Modified, Cache-Control,
// and ETags that move when the answer moves within one data version (a promotion starts, the
// Israel date changes, a chain turns stale).
let clock = new Date("2026-11-22T10:00:00Z"); // 12:00 Israel time
const ctx = testApp({ now: () => clock });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";

beforeAll(async () => {
  const s1 = f.store("shufersal", "1");
  const milk = f.product(MILK, "חלב 3% 1 ליטר");
  f.price(s1, milk, 690);
  f.history(s1, milk, "2026-01-01T06:00:00+02:00", 690);
  f.promotion("shufersal", "LATER", { stores: [s1], items: [milk], minQty: 1, discountedPrice: 500, startsAt: "2026-11-22T14:00:00+02:00" });
  f.promotion("shufersal", "NOW", { stores: [s1], items: [milk], minQty: 3, discountedPrice: 1500 });
  // Shufersal's newest data: 2026-11-21 06:00 → stale after 2026-11-22 18:00 Israel time.
  ctx.db.prices.run("INSERT INTO chain_health (chain_slug, last_data_at) VALUES ('shufersal', '2026-11-21T06:00:00+02:00')");
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps, "2026-11-22T05:00:00+02:00");
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string, headers: Record<string, string> = {}) => get(ctx.app, path, { ...key, ...headers });

const PATHS = [
  `/api/v1/prices/?barcode=${MILK}`,
  `/api/v1/prices/${MILK}/history/`,
  "/api/v1/chains/",
  "/api/v1/chains/shufersal/catalog/",
  "/api/v1/promos/feed/",
];

describe("conditional GET", () => {
  test.each(PATHS)("%s: weak ETag, Last-Modified, private max-age=300; If-None-Match → 304 without a body", async (path) => {
    clock = new Date("2026-11-22T10:00:00Z");
    const first = await call(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"1-[0-9a-f]{16}"$/);
    expect(first.headers.get("last-modified")).toBe("Sun, 22 Nov 2026 03:00:00 GMT");
    expect(first.headers.get("cache-control")).toBe("private, max-age=300");
    expect(first.headers.get("access-control-allow-origin")).toBeNull();
    const again = await call(path, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("private, max-age=300");
    // Another tag, or the same path with other parameters, is answered in full.
    expect((await call(path, { "if-none-match": 'W/"1-0000000000000000"' })).status).toBe(200);
    const other = await call(`${path}${path.includes("?") ? "&" : "?"}limit=5`);
    if (other.status === 200) expect(other.headers.get("etag")).not.toBe(etag);
  });

  test("a promotion starting within the data version changes the ETag: no 304 for the old answer", async () => {
    clock = new Date("2026-11-22T11:59:59Z"); // 13:59:59, before LATER starts
    const before = await call(`/api/v1/prices/?barcode=${MILK}`);
    expect(before.body.data.prices[0].effective_price_ils).toBe("6.90");
    const tag = before.headers.get("etag")!;
    expect((await call(`/api/v1/prices/?barcode=${MILK}`, { "if-none-match": tag })).status).toBe(304);
    clock = new Date("2026-11-22T12:00:00Z"); // 14:00: LATER starts
    const after = await call(`/api/v1/prices/?barcode=${MILK}`, { "if-none-match": tag });
    expect(after.status).toBe(200);
    expect(after.body.data.prices[0].effective_price_ils).toBe("5.00");
    expect(after.headers.get("etag")).not.toBe(tag);
    const feed = await call("/api/v1/promos/feed/");
    expect(feed.body.data.map((p: any) => p.promotion_id)).toEqual(["shufersal:LATER", "shufersal:NOW"]);
  });

  test("the history window moves at Israel midnight, and so does its ETag", async () => {
    clock = new Date("2026-11-22T21:59:59Z"); // 23:59:59 Israel time
    const late = await call(`/api/v1/prices/${MILK}/history/`);
    expect(late.body.meta.from).toBe("2025-11-22");
    clock = new Date("2026-11-22T22:00:00Z"); // 00:00 on the 23rd
    const next = await call(`/api/v1/prices/${MILK}/history/`, { "if-none-match": late.headers.get("etag")! });
    expect(next.status).toBe(200);
    expect(next.body.meta.from).toBe("2025-11-23");
  });

  test("a chain turning stale changes the ETag of /chains/", async () => {
    clock = new Date("2026-11-22T16:00:00Z"); // 18:00 Israel time: exactly 36 h, still ok
    const ok = await call("/api/v1/chains/");
    expect(ok.body.data.find((c: any) => c.chain_id === "shufersal").status).toBe("ok");
    clock = new Date("2026-11-22T16:00:01Z");
    const stale = await call("/api/v1/chains/", { "if-none-match": ok.headers.get("etag")! });
    expect(stale.status).toBe(200);
    expect(stale.body.data.find((c: any) => c.chain_id === "shufersal").status).toBe("stale");
  });

  test("a new data version changes every ETag", async () => {
    clock = new Date("2026-11-22T10:00:00Z");
    const before = await call("/api/v1/chains/shufersal/catalog/");
    commitData(ctx.deps, "2026-11-23T05:00:00+02:00");
    const after = await call("/api/v1/chains/shufersal/catalog/", { "if-none-match": before.headers.get("etag")! });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).toMatch(/^W\/"2-/);
    expect(after.headers.get("last-modified")).toBe("Mon, 23 Nov 2026 03:00:00 GMT");
  });
});
