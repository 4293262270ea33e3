/**
 * What the app itself spends on one request, without the network: the server's app (createApp,
 * as `mehir serve` builds it) on the bench's national data, asked `GET /api/v1/prices/?barcode=`
 * (gzip, a live key: quota counted, rate limit, ETag, metrics and the request log written to
 * stdout) through `app.handle` over the 500 most widely sold barcodes, answers cached. The
 * baseline, in the same run: making the same Request and a one-byte Response, which the
 * measured loop also does. The HTTP bench (bench/http.ts) measures the whole server under wrk;
 * this one tells the app's share of it apart from the runtime's HTTP and the kernel's.
 *
 *   bun bench/request-cost.ts [--scale 0.25] [--requests 200000] [--quick] [--no-write]
 *   bun --cpu-prof-md --cpu-prof-dir=DIR bench/request-cost.ts --no-write --in-place > /dev/null   (where the time goes)
 *
 * The request log goes to .bench-data/logs/request-cost.log, as a journal would take it: the bench
 * runs itself again in a child whose stdout is that file (`--in-place`: in this process, stdout as
 * it is — for a profile). The figures go to stderr and bench/RESULTS.md (## Request cost in-process);
 * `--quick` (20,000 requests a round) records nothing.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { loadSettings } from "../src/config.ts";
import { createApp } from "../src/app.ts";
import { createServices } from "../src/services.ts";
import { openDataDir, PRICES_FILE } from "../src/db/open.ts";
import { setLogFormat, setLogLevel } from "../src/lib/log.ts";
import { BENCH_ENV, createLiveBenchKey } from "./lib/bench-key.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { ensureNational } from "./national.ts";
import { flag, numberOption } from "./lib/args.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import { LOG_DIR } from "./lib/processes.ts";
import { mkdirSync } from "node:fs";

const args = process.argv.slice(2);
if (!flag(args, "in-place")) {
  mkdirSync(LOG_DIR, { recursive: true });
  const child = Bun.spawn([process.execPath, import.meta.path, ...args, "--in-place"], { stdout: Bun.file(join(LOG_DIR, "request-cost.log")), stderr: "inherit" });
  process.exit(await child.exited);
}
const quick = flag(args, "quick");
const scale = numberOption(args, "scale", 0.25);
const requests = Math.round(numberOption(args, "requests", quick ? 20_000 : 200_000));
const ROUNDS = 3;
const say = (msg: string) => console.error(`[request-cost] ${msg}`);

const dataDir = ensureNational(scale);
const key = createLiveBenchKey(dataDir, "request-cost");
const pricesDb = new Database(join(dataDir, PRICES_FILE), { readonly: true });
const barcodes = popularBarcodes(pricesDb, 500);
pricesDb.close();

// As served: info-level JSON lines on stdout, exports off (a worker's CPU would count here).
const settings = loadSettings({ ...process.env, ...BENCH_ENV, MEHIR_EXPORTS: "off", MEHIR_LOG_LEVEL: "info", MEHIR_LOG_FORMAT: "json" }, { dataDir, port: 0, host: "127.0.0.1" });
setLogLevel("info");
setLogFormat("json");
const app = createApp(createServices(settings, openDataDir(dataDir)));

const urls = barcodes.map((b) => `http://127.0.0.1:8080/api/v1/prices/?barcode=${b}`);
const headers = { host: "127.0.0.1:8080", "x-api-key": key, "accept-encoding": "gzip", "user-agent": "request-cost" };

async function appRequests(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const response = await app.handle(new Request(urls[i % urls.length]!, { headers }));
    if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  }
}

async function baselineRequests(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const request = new Request(urls[i % urls.length]!, { headers });
    const response = new Response(request.method === "GET" ? "x" : "");
    await response.arrayBuffer();
  }
}

/** CPU µs per request of `run` (this process, all threads), and wall µs. */
async function perRequest(run: (n: number) => Promise<void>): Promise<{ cpu: number; wall: number }> {
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await run(requests);
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / requests, wall: ((performance.now() - started) * 1000) / requests };
}

say(`warming up: every barcode's answer computed and cached, the JIT warm`);
await appRequests(Math.max(5_000, urls.length * 4));
await baselineRequests(5_000);
const rows: (string | number)[][] = [];
const app_: number[] = [];
const base: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const a = await perRequest(appRequests);
  const b = await perRequest(baselineRequests);
  app_.push(a.cpu);
  base.push(b.cpu);
  rows.push([round, a.cpu.toFixed(2), a.wall.toFixed(2), b.cpu.toFixed(2), (a.cpu - b.cpu).toFixed(2)]);
  say(`round ${round}: app ${a.cpu.toFixed(2)} µs CPU a request, baseline ${b.cpu.toFixed(2)} µs`);
}
const middle = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
const body = [
  machineLine(`national scale ${scale}, ${requests.toLocaleString("en-US")} requests a round, one at a time`),
  "",
  table(["round", "app: µs CPU a request", "app: µs wall", "baseline (Request + Response): µs CPU", "the app's own work: µs"], rows),
  "",
  `The app's own work on \`GET /api/v1/prices/?barcode=\` (gzip, a live key, answers cached): **${(middle(app_) - middle(base)).toFixed(1)} µs** a request (rounds' middle), ` +
    "before the runtime's HTTP parsing and writing and the kernel's socket calls, which bench/http.ts measures with them under wrk. " +
    "`bun --cpu-prof-md --cpu-prof-dir=DIR bench/request-cost.ts --no-write --in-place > /dev/null` profiles it (see \"Where the time goes\").",
].join("\n");
console.error(body);
if (!flag(args, "no-write") && !quick) {
  writeSection("Request cost in-process", body);
  say("written to bench/RESULTS.md (## Request cost in-process)");
}
process.exit(0);
