/**
 * Runs bench/lib/import-memory-child.ts (a real server importing a different day N times in a
 * row) while this process sends it requests, and returns the child's per-import samples. Used by
 * bench/import-memory.ts and its small test (test/bench/import-memory.test.ts).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { importPaths } from "../../src/ingest/run/import.ts";
import { openDataDir } from "../../src/db/open.ts";
import { loadRegistry } from "../../src/registry.ts";
import { SANDBOX_FILE, openSandboxDatabase } from "../../src/sandbox/sandbox.ts";
import { bumpDataVersion } from "../../src/data/data-state.ts";
import { writeDay, type FilesPlan } from "./price-files.ts";
import { createLiveBenchKey, BENCH_ENV } from "./bench-key.ts";
import { eachLine } from "../../test/helpers/lines.ts";

export interface ImportSample {
  import: number;
  ms: number;
  dataVersion: number | null;
  rssMiB: number;
  heapMiB: number;
  fds: number;
  /** Every thread of the process (the runtime's helpers come and go with the work). */
  threads: number;
  /** Threads that are not the runtime's own: workers' (import, export, search, alerts). */
  workerThreads: number;
  timers: number;
  /** The live timers at the sample, by kind and delay (e.g. "interval 1000, timeout 30000"). */
  kinds: string;
}

export interface ImportMemoryRun {
  samples: ImportSample[];
  requests: number;
  failures: number;
}

const CHILD = join(import.meta.dir, "import-memory-child.ts");

/** YYYYMMDD of day `i` after 2026-10-01 (consecutive days: each import is newer than the last). */
const dateOf = (i: number) => new Date(Date.UTC(2026, 9, 1) + i * 86_400_000).toISOString().slice(0, 10).replaceAll("-", "");

export async function runImportMemory(root: string, plan: FilesPlan, imports: number, say: (line: string) => void = () => {}): Promise<ImportMemoryRun> {
  const dataDir = join(root, "data");
  const days = Array.from({ length: imports + 1 }, (_, i) => join(root, "days", `d${String(i).padStart(2, "0")}`));
  days.forEach((dir, i) => writeDay(dir, plan, (i % 9) + 1, dateOf(i)));
  say(`wrote ${days.length} days of ${plan.stores} stores × ${plan.itemsPerStore} items`);
  // Day 0 imported before the server starts (its data is there at start, as on a server running for a while).
  mkdirSync(dataDir, { recursive: true });
  const db = openDataDir(dataDir);
  await importPaths({ db: db.prices, registry: loadRegistry(), paths: [days[0]!], origin: "cli", source: "live" });
  const barcodes = (db.prices.query("SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id GROUP BY p.id ORDER BY count(*) DESC LIMIT 20").values() as [string][]).map(([b]) => b);
  db.prices.close();
  db.accounts.close();
  // The sandbox (test keys' demo data) marked made: its build at start is not what is measured.
  const sandbox = openSandboxDatabase(join(dataDir, SANDBOX_FILE), loadRegistry());
  bumpDataVersion(sandbox, "2026-10-01T05:30:00+03:00", "demo");
  sandbox.close();
  const key = createLiveBenchKey(dataDir, "import-memory");

  const readyFile = join(root, "ready.json");
  // MEHIR_SOURCE=demo with data present: nothing is generated and nothing is fetched (no network); the imports come from here.
  const child = Bun.spawn([process.execPath, CHILD, "--data-dir", dataDir, "--days", days.slice(1).join(","), "--ready-file", readyFile], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...BENCH_ENV, MEHIR_SOURCE: "demo", MEHIR_LOG_LEVEL: "warn", MEHIR_METRICS_ADDR: "127.0.0.1:0" },
  });
  const samples: ImportSample[] = [];
  let stop = false;
  const errors: string[] = [];
  const reading = Promise.all([
    eachLine(child.stdout, (line) => {
      if (line.startsWith("SAMPLE ")) {
        const s = JSON.parse(line.slice(7)) as ImportSample;
        samples.push(s);
        // The child stops its server after the last sample: requests from then on are not the server's fault.
        if (s.import === imports) stop = true;
        say(`import ${s.import}: ${s.ms} ms, RSS ${s.rssMiB} MiB, heap ${s.heapMiB} MiB, fds ${s.fds}, threads ${s.threads} (workers' ${s.workerThreads}), timers ${s.timers} (${s.kinds})`);
      }
    }),
    eachLine(child.stderr, (line) => errors.push(line)),
  ]);
  let url = "";
  while (!url) {
    if (child.exitCode !== null) throw new Error(`import-memory child exited ${child.exitCode}:\n${errors.join("\n")}`);
    const ready = await Bun.file(readyFile).json().catch(() => null);
    if (ready) url = ready.url;
    else await Bun.sleep(100);
  }
  let requests = 0;
  let failures = 0;
  const paths = (b: string) => [`/api/v1/prices/?barcode=${b}`, `/api/v1/prices/${b}/history/?months=3`, `/api/v1/product-search/?q=${encodeURIComponent("חלב")}`];
  const traffic = (async () => {
    for (let i = 0; !stop; i++) {
      const path = paths(barcodes[i % barcodes.length]!)[i % 3]!;
      const res = await fetch(`${url}${path}`, { headers: { "x-api-key": key } }).catch(() => null);
      requests++;
      if (!stop && (!res || (res.status !== 200 && res.status !== 503))) {
        failures++;
        if (failures <= 3) say(`request ${path}: ${res ? res.status + " " + (await res.clone().text()).slice(0, 200) : "no answer"}`);
      }
      await res?.arrayBuffer();
      await Bun.sleep(5);
    }
  })();
  const code = await child.exited;
  stop = true;
  await traffic;
  await reading;
  if (code !== 0) throw new Error(`import-memory child exited ${code}:\n${errors.slice(-30).join("\n")}`);
  return { samples, requests, failures };
}
