/**
 * The new comparison paths of issue 41, in process (app.handle, no sockets), on a synthetic city:
 * 10 chains × 20 open stores within 5 km of a point (200 stores in range), 2,000 products each
 * store sells with probability 0.7 at its chain's price level ± noise, multi-buy promotions on a
 * tenth of each chain's products, and two price changes per store and product over two years.
 *
 *   - POST /api/v1/basket/plan/: 30-item lists, max_stores 1, 2 and 3 (target p95 ≤ 50 ms);
 *   - POST /api/v1/basket/compare/ with granularity "store" (the 200 stores ranked);
 *   - GET /api/v1/chains/price-index/: the first answer of a data version (computed) with and
 *     without 24 months of daily history, then a cached one.
 *
 *   bun bench/basket-plan.ts [--requests 200] [--record]
 *
 * Full runs with --record write bench/RESULTS.md under "## Basket plan, stores and price index".
 */
import { testApp, commitData } from "../test/helpers/app.ts";
import { Fixture } from "../test/helpers/fixture.ts";
import { newKey } from "../test/helpers/keys.ts";
import { refreshChainProducts } from "../src/db/chain-products.ts";
import { flag, numberOption } from "./lib/args.ts";
import { seeded } from "./lib/rng.ts";
import { ms, summarize } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const REQUESTS = numberOption(args, "requests", 200);
const RECORD = flag(args, "record");
const AT = { lat: 32.0853, lon: 34.7818 };
const CHAINS = ["shufersal", "rami-levy", "victory", "osher-ad", "yochananof", "tiv-taam", "carrefour", "mahsanei-hashuk", "h-cohen", "super-yuda"];
const PRODUCTS = 2000;

// No rate limit in the way of a bench.
const ctx = testApp({ env: { MEHIR_RATE_PRO: "10000000" } });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
const rnd = seeded(41);
const built = performance.now();
const products = Array.from({ length: PRODUCTS }, (_, i) => f.product(String(7290200000000 + i), `מוצר ${i}`));
const base = products.map(() => 300 + Math.floor(rnd() * 3000));
ctx.db.prices.run("BEGIN");
for (const [c, slug] of CHAINS.entries()) {
  const level = 0.9 + c * 0.02;
  const stores: number[] = [];
  for (let s = 0; s < 20; s++) {
    const id = f.store(slug, String(s + 1));
    // Uniform in a 5 km disc (0.009° latitude ≈ 1 km; longitude scaled for 32°N).
    const r = 4.9 * Math.sqrt(rnd());
    const a = rnd() * 2 * Math.PI;
    ctx.db.prices.run("UPDATE stores SET latitude = ?, longitude = ?, store_type = 1 WHERE id = ?", [AT.lat + (r * Math.sin(a)) / 111.2, AT.lon + (r * Math.cos(a)) / 94.3, id]);
    stores.push(id);
  }
  products.forEach((p, i) => {
    const price = Math.round(base[i]! * level);
    for (const s of stores) {
      if (rnd() > 0.7) continue;
      const shelf = price + Math.floor(rnd() * 40) - 20;
      f.price(s, p, shelf);
      f.history(s, p, "2024-10-01T08:00:00+03:00", shelf + 50);
      f.history(s, p, `2026-${String(1 + Math.floor(rnd() * 10)).padStart(2, "0")}-15T08:00:00+02:00`, shelf);
    }
    if (i % 10 === c) f.promotion(slug, `M${i}`, { stores, items: [p], minQty: 3, discountedPrice: Math.round(price * 2.5) });
  });
}
ctx.db.prices.run("COMMIT");
refreshChainProducts(ctx.db.prices);
commitData(ctx.deps);
const key = newKey(ctx.deps, "pro").headers;
console.log(`built in ${ms(performance.now() - built)} ms`);

function lists(count: number, size: number): { barcode: string; quantity: number }[][] {
  return Array.from({ length: count }, () => {
    const chosen = new Set<number>();
    while (chosen.size < size) chosen.add(Math.floor(Math.pow(rnd(), 1.6) * PRODUCTS));
    return [...chosen].map((i) => ({ barcode: String(7290200000000 + i), quantity: 1 + Math.floor(Math.pow(rnd(), 2) * 4) }));
  });
}

async function timed(method: string, path: string, body?: unknown): Promise<number> {
  const start = performance.now();
  const res = await ctx.app.handle(new Request(`http://localhost${path}`, { method, headers: { ...key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }));
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return performance.now() - start;
}

const near = `${AT.lat},${AT.lon}`;
const rows: (string | number)[][] = [];
async function run(name: string, request: (items: { barcode: string; quantity: number }[]) => Promise<number>) {
  const bodies = lists(REQUESTS + 20, 30);
  for (const items of bodies.slice(0, 20)) await request(items); // warm-up
  const samples: number[] = [];
  for (const items of bodies.slice(20)) samples.push(await request(items));
  const s = summarize(samples);
  rows.push([name, REQUESTS, ms(s.p50), ms(s.p95), ms(s.p99), ms(s.max)]);
  console.log(name, `p50 ${ms(s.p50)} p95 ${ms(s.p95)} max ${ms(s.max)}`);
}
for (const maxStores of [1, 2, 3]) await run(`plan, 30 items, max_stores ${maxStores}`, (items) => timed("POST", "/api/v1/basket/plan/", { items, near, radius_km: 5, max_stores: maxStores }));
await run("compare, granularity store, 30 items", (items) => timed("POST", "/api/v1/basket/compare/", { items, near, radius_km: 5, granularity: "store" }));

const indexRows: (string | number)[][] = [];
indexRows.push(["price index, first answer (computed)", ms(await timed("GET", "/api/v1/chains/price-index/"))]);
indexRows.push(["price index, 24 months of history, first answer (computed)", ms(await timed("GET", "/api/v1/chains/price-index/?months=24"))]);
indexRows.push(["price index, 12 months of history, a slice of the computed 24", ms(await timed("GET", "/api/v1/chains/price-index/?months=12"))]);
indexRows.push(["price index, 12 months, cached", ms(await timed("GET", "/api/v1/chains/price-index/?months=12"))]);
for (const r of indexRows) console.log(r.join(": "), "ms");

if (RECORD) {
  writeSection(
    "Basket plan, stores and price index",
    [
      machineLine(`in process (app.handle), ${REQUESTS} requests per row after 20 warm-up ones`),
      "",
      "Synthetic city: 10 chains × 20 open stores within 5 km (200 stores in range), 2,000 products each sold by a store with probability 0.7, multi-buy promotions on a tenth of each chain's products, two history rows per store and product. Lists of 30 distinct products.",
      "",
      table(["request", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows),
      "",
      table(["price index", "ms"], indexRows),
      "",
      `Target (plan, 30 items, 200 stores in range, p95 ≤ 50 ms): ${rows.slice(0, 3).every((r) => Number(String(r[3]).replace(/,/g, "")) <= 50) ? "**met**" : "**not met**"}.`,
    ].join("\n"),
  );
}
ctx.close();
