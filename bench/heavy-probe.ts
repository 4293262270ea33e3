/**
 * The two heavy paths of issue 46 timed alone, in process, on a national database (a copy: opening
 * it migrates it):
 *
 *   bun bench/heavy-probe.ts <data dir> promos|inline|inline24|worker|worker24
 *
 * promos: the promotions feed with `barcode` (the 5 most promoted products, then 50 more), wall and
 * serving-thread CPU per request. inline[24]: the price index (with 24 months of history) computed
 * on the calling thread. worker[24]: the same through the route's path (a worker), with every gap
 * of the serving thread's event loop over 20 ms while it waited. Prints a hash of each answer, so
 * two builds can be compared.
 */
import { openDataDir } from "../src/db/open.ts";
import { loadSettings } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { ColdBudget, threadCpuMs } from "../src/serving/cold-budget.ts";
import { promotionsFeed } from "../src/modules/promos/service.ts";
import { cachedPriceIndex, type PriceIndexAnswer } from "../src/modules/price-index/service.ts";
import { priceIndexAnswer } from "../src/modules/price-index/off-thread.ts";

const dir = process.argv[2] ?? "/tmp/heavy2";
const what = process.argv[3] ?? "promos";
const db = openDataDir(dir);
const settings = loadSettings({ MEHIR_IMPORT_PRIORITY: "normal" });
const deps = createServices(settings, db, { coldBudget: new ColdBudget(1_000_000) });
const live = deps.dataSets.live;
const time = <T>(label: string, f: () => T): T => {
  const w = performance.now();
  const c = threadCpuMs();
  const out = f();
  console.log(`${label}: wall ${(performance.now() - w).toFixed(1)} ms, cpu ${(threadCpuMs() - c).toFixed(1)} ms`);
  return out;
};
const mostPromoted = (n: number) =>
  db.prices
    .query("SELECT p.barcode_key FROM promotion_items pi JOIN products p ON p.id = pi.product_id GROUP BY pi.product_id ORDER BY count(*) DESC LIMIT ?")
    .values(n)
    .map((r) => r[0] as string);

if (what === "promos") {
  const top = mostPromoted(55);
  time("feed, no filter", () => promotionsFeed(live, { limit: 20, include_club: "true" }));
  for (const b of top.slice(0, 5)) {
    const r = time(`feed barcode=${b}`, () => promotionsFeed(live, { limit: 20, include_club: "true", barcode: b }));
    console.log(`  items ${r.items.length}, hash ${Bun.hash(JSON.stringify(r))}`);
  }
  const w = performance.now();
  const c = threadCpuMs();
  for (const b of top.slice(5)) promotionsFeed(live, { limit: 20, include_club: "true", barcode: b });
  console.log(`50 more barcodes: mean wall ${((performance.now() - w) / 50).toFixed(2)} ms, cpu ${((threadCpuMs() - c) / 50).toFixed(2)} ms`);
  const store = db.prices.query("SELECT store_code FROM stores LIMIT 1").values()[0]![0] as string;
  const r = time("feed barcode + store_id", () => promotionsFeed(live, { limit: 20, include_club: "true", barcode: top[0], store_id: store }));
  console.log(`  items ${r.items.length}, hash ${Bun.hash(JSON.stringify(r))}`);
} else {
  const months = what.endsWith("24") ? 24 : undefined;
  const hash = (a: { value: PriceIndexAnswer }) => Bun.hash(new TextDecoder().decode(a.value.json.bytes) + JSON.stringify(a.value.meta));
  if (what.startsWith("inline")) {
    const r = time(`price index months=${months} (inline)`, () => cachedPriceIndex(live, {}, months));
    console.log(`  hash ${hash(r)}, meta ${JSON.stringify(r.value.meta)}`);
  } else {
    // Every gap over 20 ms between the serving thread's turns (the search index, built on it at
    // start, makes some), when, and when the answer arrived.
    const w = performance.now();
    let last = w;
    const stalls: string[] = [];
    const ticker = setInterval(() => {
      const t = performance.now();
      if (t - last > 20) stalls.push(`${(t - last).toFixed(0)} ms at ${((t - w) / 1000).toFixed(1)} s`);
      last = t;
    }, 1);
    const r = await priceIndexAnswer(live, {}, months);
    const resumed = performance.now();
    await new Promise((done) => setTimeout(done, 5));
    clearInterval(ticker);
    console.log(`price index months=${months} (worker): answer after ${(resumed - w).toFixed(0)} ms; event-loop gaps over 20 ms: ${stalls.join("; ") || "none"}`);
    console.log(`  hash ${hash(r)}, meta ${JSON.stringify(r.value.meta)}`);
    if (months) for (const m of [12, 3]) time(`  months=${m}: slice + serialize of the full computation`, () => cachedPriceIndex(live, {}, m));
  }
}
deps.stop();
