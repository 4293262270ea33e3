/**
 * A year in an hour (issue 45, part 6): daily imports over two simulated years (default 730 days)
 * with the clock under the bench's control, and per simulated month: the mean import time, the
 * database's size and free pages, history rows, the p99 of prices / history / basket answers
 * (in-process, uncached: a fresh data version every day) and the process's RSS.
 * Targets (issue 45): import time and p99 flat (the last month within 1.2× of the third), the
 * database's size flat once the retention window is full (here --history-months, default 12, so
 * the second year shows it; at the default 25 months the window fills after two years).
 *
 *   bun bench/years.ts [--days 730] [--stores 20] [--items 800] [--products 4000] [--history-months 12] [--requests 400] [--no-write]
 *
 * Files: the synthetic national-shaped chains of bench/lib/price-files.ts (6 chains, shared GTINs,
 * chain-internal codes, promotions), ~6 % of a store's prices changing each day.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flag, numberOption } from "./lib/args.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import { writeDay } from "./lib/price-files.ts";
import { percentile } from "./lib/stats.ts";

const median = (values: number[]) => percentile(Float64Array.from(values).sort(), 50);
import { openDataDir } from "../src/db/open.ts";
import { loadRegistry } from "../src/registry.ts";
import { loadSettings } from "../src/config.ts";
import { importPaths } from "../src/ingest/run/import.ts";
import { createServices } from "../src/services.ts";
import { createApp } from "../src/app.ts";
import { DataState } from "../src/data/data-state.ts";
import { syncRegistry } from "../src/db/sync-registry.ts";
import { databaseSpace } from "../src/db/compaction.ts";
import { checkpointWal } from "../src/db/checkpoint.ts";
import { createAccount } from "../src/accounts/accounts.ts";
import { createKey } from "../src/accounts/keys.ts";
import { setLogLevel } from "../src/lib/log.ts";

setLogLevel("error");

const args = process.argv.slice(2);
const days = numberOption(args, "days", 730);
const historyMonths = numberOption(args, "history-months", 12);
const requests = numberOption(args, "requests", 400);
/** Passes of `requests` requests per kind and month; the month's p99 is the best pass's. */
const PASSES = 5;
/** The short history asked for: a window already full in the third month, so the months compare like for like. */
const SHORT_MONTHS = 2;
const plan = { stores: numberOption(args, "stores", 20), itemsPerStore: numberOption(args, "items", 800), products: numberOption(args, "products", 4000), chains: 6, promos: true };
const root = mkdtempSync(join(tmpdir(), "mehir-years-"));
const START = Date.UTC(2025, 0, 1, 7, 0, 0); // 09:00 in Israel, the day's import

interface Month {
  month: string;
  /** Median of the month's imports. */
  importMs: number;
  /** Median of import ÷ its parse (read + parse on the importing thread: the same work whatever the database holds, so the machine's speed at that moment). */
  importPerParse: number;
  dbMiB: number;
  freeMiB: number;
  historyRows: number;
  pricesP99: number;
  /** History of SHORT_MONTHS months: the same amount of history in every month from the third on. */
  historyShortP99: number;
  /** History of 12 months (or the window): an answer that grows until the window is full. */
  historyP99: number;
  basketP99: number;
  rssMiB: number;
  /** Mean ms per import of each phase (parse and read on the importing thread, the session's steps, pruning). */
  phases: Record<string, number>;
}

try {
  const dataDir = join(root, "data");
  const db = openDataDir(dataDir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  let now = new Date(START);
  const settings = loadSettings({ MEHIR_RATE_PRO: "100000000", MEHIR_QUOTA_PRO: "1000000000", MEHIR_HISTORY_MONTHS: String(historyMonths), MEHIR_EXPORTS: "off" });
  const deps = createServices(settings, db, { registry, data: new DataState(db.prices), now: () => now });
  const app = createApp(deps);
  const account = createAccount(db.accounts, { email: "years@bench.invalid", plan: "pro" }, now);
  const key = createKey(db.accounts, { accountId: account.id, kind: "live" }, now).key;

  const months: Month[] = [];
  let monthImports: number[] = [];
  let monthPhases: Record<string, number>[] = [];
  let monthRatios: number[] = [];
  let barcodes: string[] = [];
  const started = Date.now();
  for (let d = 0; d < days; d++) {
    now = new Date(START + d * 86_400_000);
    const date = now.toISOString().slice(0, 10).replaceAll("-", "");
    const dir = join(root, "day");
    rmSync(dir, { recursive: true, force: true });
    writeDay(dir, plan, d === 0 ? 1 : 2 + (d % 8), date);
    const at = performance.now();
    const report = await importPaths({ db: db.prices, registry, paths: [dir], origin: "fetch", source: "live", now: () => now, historyMonths, parseWorkers: 0 });
    const importMs = performance.now() - at;
    monthImports.push(importMs);
    monthRatios.push(importMs / Math.max(1, report.timings.read + report.timings.parse));
    if (report.dataVersion === null) throw new Error(`day ${date}: ${report.error}`);
    const t = report.timings;
    monthPhases.push({ parse: t.read + t.parse, files: t.files, history: t.history, chainProducts: t.chainProducts, identity: t.identity, commit: t.commit, prune: report.pruned?.ms ?? 0 });
    deps.data.refresh();
    if (barcodes.length === 0) {
      barcodes = (db.prices.query("SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id WHERE p.scope_chain_id = 0 GROUP BY p.id ORDER BY count(*) DESC LIMIT ?").values(requests * PASSES) as [string][]).map(([b]) => b);
      // A product asked twice would be answered from the cache the second time.
      if (barcodes.length < requests * PASSES) throw new Error(`${barcodes.length} products sold on the first day: fewer than the ${requests * PASSES} the passes ask (lower --requests)`);
    }
    const tomorrow = new Date(START + (d + 1) * 86_400_000);
    if (tomorrow.getUTCMonth() === now.getUTCMonth() && d !== days - 1) continue;

    // The month's last day: measure.
    const time = async (path: string, init?: RequestInit) => {
      const t = performance.now();
      const res = await app.handle(new Request(`http://localhost${path}`, { ...init, headers: { "x-api-key": key, "content-type": "application/json" } }));
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return performance.now() - t;
    };
    // The best of PASSES passes, each over `requests` products no earlier pass asked (so every
    // answer is computed): a shared machine's other work lands in one pass, not in all three.
    const p99 = async (make: (i: number) => Promise<number>) => {
      let best = Infinity;
      for (let pass = 0; pass < PASSES; pass++) {
        // Each pass starts from a collected heap: the day's import left garbage whose collection
        // would otherwise land in whichever pass runs first (a pause unrelated to the answers).
        Bun.gc(true);
        const samples: number[] = [];
        for (let i = 0; i < requests; i++) samples.push(await make(pass * requests + i));
        best = Math.min(best, percentile(Float64Array.from(samples).sort(), 99));
      }
      return +best.toFixed(2);
    };
    const pricesP99 = await p99((i) => time(`/api/v1/prices/?barcode=${barcodes[i % barcodes.length]}&granularity=store`));
    const historyShortP99 = await p99((i) => time(`/api/v1/prices/${barcodes[i % barcodes.length]}/history/?months=${SHORT_MONTHS}`));
    const historyP99 = await p99((i) => time(`/api/v1/prices/${barcodes[i % barcodes.length]}/history/?months=${Math.min(12, historyMonths)}`));
    const basketP99 = await p99((i) =>
      time("/api/v1/basket/compare/", { method: "POST", body: JSON.stringify({ items: Array.from({ length: 10 }, (_, k) => ({ barcode: barcodes[(i * 10 + k) % barcodes.length], quantity: 1 + (k % 3) })) }) }),
    );
    checkpointWal(db.prices);
    const space = databaseSpace(db.prices);
    Bun.gc(true);
    const month: Month = {
      month: now.toISOString().slice(0, 7),
      importMs: Math.round(median(monthImports)),
      importPerParse: +median(monthRatios).toFixed(2),
      dbMiB: +(space.bytes / 2 ** 20).toFixed(1),
      freeMiB: +(space.freeBytes / 2 ** 20).toFixed(1),
      historyRows: (db.prices.query("SELECT count(*) AS n FROM price_history").get() as { n: number }).n,
      pricesP99,
      historyShortP99,
      historyP99,
      basketP99,
      rssMiB: +(process.memoryUsage().rss / 2 ** 20).toFixed(1),
      phases: Object.fromEntries(Object.keys(monthPhases[0]!).map((k) => [k, Math.round(monthPhases.reduce((a, p) => a + p[k]!, 0) / monthPhases.length)])),
    };
    months.push(month);
    monthImports = [];
    monthPhases = [];
    monthRatios = [];
    console.log(JSON.stringify(month));
  }

  const third = months[2];
  const last = months.at(-1)!;
  const ratio = (field: "importMs" | "importPerParse" | "pricesP99" | "historyShortP99" | "historyP99" | "basketP99", base: Month | undefined) => (base ? `${(last[field] / base[field]).toFixed(2)}×` : "n/a");
  const within = (field: Parameters<typeof ratio>[0]) => ratio(field, third);
  const full = months.filter((_, i) => i >= historyMonths + 1);
  const sizeFlat = full.length >= 2 ? `${full[0]!.dbMiB} → ${full.at(-1)!.dbMiB} MiB over the ${full.length} months after the window filled` : "window not full within the run";
  const body = [
    machineLine(`${days} simulated days, ${plan.stores} stores × ${plan.itemsPerStore} items (${plan.chains} chains, promotions), MEHIR_HISTORY_MONTHS=${historyMonths}, one import a day at 09:00 simulated Israel time; p99 (best of ${PASSES} passes of ${requests} in-process requests a kind, one per product) (prices at store granularity, history of ${SHORT_MONTHS} and of ${Math.min(12, historyMonths)} months, a 10-item basket), uncached; ${Math.round((Date.now() - started) / 60_000)} min`),
    "",
    table(
      ["month", "import ms (median)", "import ÷ parse", "parse / files / history / chain_products / names / prune ms (means)", "prices.sqlite MiB", "free MiB", "history rows", "prices p99 ms", `history ${SHORT_MONTHS} months p99 ms`, `history ${Math.min(12, historyMonths)} months p99 ms`, "basket p99 ms", "RSS MiB"],
      months.map((m) => [
        m.month,
        m.importMs,
        m.importPerParse,
        [m.phases.parse, m.phases.files, m.phases.history, m.phases.chainProducts, m.phases.identity, m.phases.prune].join(" / "),
        m.dbMiB,
        m.freeMiB,
        m.historyRows.toLocaleString("en"),
        m.pricesP99,
        m.historyShortP99,
        m.historyP99,
        m.basketP99,
        m.rssMiB,
      ]),
    ),
    "",
    `Last month against the third (target ≤ 1.2×): import ${within("importMs")} (import ÷ parse ${within("importPerParse")}), prices p99 ${within("pricesP99")}, history (${SHORT_MONTHS} months) p99 ${within("historyShortP99")}, basket p99 ${within("basketP99")}; history of ${Math.min(12, historyMonths)} months p99 ${within("historyP99")}, but in the third month that answer holds three months of records, a quarter of what it holds once the window is full. Database size once the window is full (target flat): ${sizeFlat}. Against the first month with a full window (${full[0]?.month ?? "n/a"}): import ${ratio("importMs", full[0])}, prices p99 ${ratio("pricesP99", full[0])}, history (${SHORT_MONTHS} months) p99 ${ratio("historyShortP99", full[0])}, history (${Math.min(12, historyMonths)} months) p99 ${ratio("historyP99", full[0])}, basket p99 ${ratio("basketP99", full[0])}.`,
    "",
    `Import: the median of the month's daily imports; "import ÷ parse" divides each import by its own read and parse time (done on the importing thread here, the same work whatever the database holds), so a machine that is slower one minute than the next moves both and not the ratio. Each p99 is the best of ${PASSES} passes of ${requests} requests a kind on the month's last day, every request for a product no earlier request asked (a basket: a list of 10 none asked before), so every answer is computed, none comes from the cache; each pass after a full collection; the best pass, because a shared machine's other work (or a collection) lands in one pass and not in all.`,
  ].join("\n");
  console.log(body);
  if (!flag(args, "no-write")) writeSection("A year in an hour: daily imports over simulated years (bench/years.ts)", body);
  deps.search.stop();
  deps.access?.flush();
  await Bun.sleep(100);
  db.prices.close();
  db.accounts.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}
