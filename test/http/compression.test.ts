import { beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";

// gzip on the cached JSON answers: the same answer as without, smaller, with Vary, and only
// when the client asks for it.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";
const CHAINS = ["shufersal", "rami-levy", "victory", "yochananof", "osher-ad", "tiv-taam"];

beforeAll(async () => {
  const milk = f.product(MILK, "חלב 3% 1 ליטר", { manufacturer: "תנובה" });
  const stores = new Map<string, number[]>();
  for (const [c, slug] of CHAINS.entries()) {
    const ids = Array.from({ length: 6 }, (_, s) => f.store(slug, String(s + 1), { city: "ירושלים", name: `סניף ${s + 1}` }));
    stores.set(slug, ids);
    for (const [s, id] of ids.entries()) f.price(id, milk, 600 + c * 10 + s);
  }
  const shufersal1 = stores.get("shufersal")![0]!;
  for (let i = 0; i < 40; i++) f.price(shufersal1, f.product(`72900000${String(i).padStart(5, "0")}`, `מוצר ${i}`), 100 + i);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

async function fetchRaw(path: string, headers: Record<string, string> = {}) {
  const res = await ctx.app.handle(new Request(`http://localhost${path}`, { headers: { ...key, ...headers } }));
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const withoutRequestId = (body: { meta: Record<string, unknown> }) => ({ ...body, meta: { ...body.meta, request_id: undefined } });
const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

const PATHS = [
  `/api/v1/prices/?barcode=${MILK}`,
  `/api/v1/prices/?barcode=${MILK}&granularity=store&city=ירושלים`,
  "/api/v1/chains/shufersal/catalog/?limit=40",
];

describe("gzip answers", () => {
  test.each(PATHS)("%s: Accept-Encoding gzip → the same answer gzipped, smaller, Vary: Accept-Encoding", async (path) => {
    const plain = await fetchRaw(path);
    expect(plain.res.status).toBe(200);
    expect(plain.res.headers.get("content-encoding")).toBeNull();
    expect(plain.res.headers.get("vary")).toContain("Accept-Encoding");
    expect(plain.bytes.length).toBeGreaterThan(1024);

    const zipped = await fetchRaw(path, { "accept-encoding": "gzip, deflate, br" });
    expect(zipped.res.status).toBe(200);
    expect(zipped.res.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(zipped.res.headers.get("vary")).toContain("Accept-Encoding");
    expect(zipped.res.headers.get("etag")).toBe(plain.res.headers.get("etag"));
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 2);
    const unzipped = json(gunzipSync(zipped.bytes));
    expect(withoutRequestId(unzipped)).toEqual(withoutRequestId(json(plain.bytes)));
    // Each answer carries its own request id (meta is written per request, after the cached part).
    expect(unzipped.meta.request_id).toBe(zipped.res.headers.get("x-request-id"));
    expect(unzipped.meta.quota_remaining).toBeNumber();
  });

  test("gzip refused with q=0, or not offered: identity", async () => {
    for (const header of ["gzip;q=0", "identity", "br"]) {
      const { res, bytes } = await fetchRaw(PATHS[0]!, { "accept-encoding": header });
      expect(res.headers.get("content-encoding")).toBeNull();
      expect(json(bytes).data.barcode).toBe(MILK);
    }
  });

  test("If-None-Match still answers 304 without a body when gzip is accepted", async () => {
    const first = await fetchRaw(PATHS[0]!, { "accept-encoding": "gzip" });
    const again = await fetchRaw(PATHS[0]!, { "accept-encoding": "gzip", "if-none-match": first.res.headers.get("etag")! });
    expect(again.res.status).toBe(304);
    expect(again.bytes.length).toBe(0);
  });

  test("small answers are not compressed", async () => {
    const { res, bytes } = await fetchRaw("/api/v1/chains/shufersal/catalog/?limit=1", { "accept-encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(bytes.length).toBeLessThan(1024);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(json(bytes).data).toHaveLength(1);
  });

  test("errors stay plain problem+json", async () => {
    const { res, bytes } = await fetchRaw("/api/v1/prices/?barcode=abc", { "accept-encoding": "gzip" });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(json(bytes).code).toBe("invalid_parameter");
  });
});

describe("gzip over a real socket", () => {
  test("fetch (which asks for gzip, as browsers do) reads the same answer", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (r) => ctx.app.handle(r) });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}${PATHS[1]}`, { headers: key });
      expect(res.headers.get("content-encoding")).toBe("gzip");
      const body = await res.json();
      expect(body.data.prices).toHaveLength(CHAINS.length * 6);
      expect(body.data.name).toBe("חלב 3% 1 ליטר");
    } finally {
      server.stop(true);
    }
  });
});
