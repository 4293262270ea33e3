import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { rmSync } from "node:fs";
import { createAccount } from "../../../src/accounts/accounts.ts";
import { createKey } from "../../../src/accounts/keys.ts";
import type { ImportReport } from "../../../src/ingest/run/report.ts";
import { dayOneImported, MAIN, tempRoot } from "../../helpers/faults/faults.ts";
import { ServeProcess, withLogs } from "../../helpers/serve-process.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * /metrics of a real `bun src/main.ts serve` while the things it reports happen: an import in a
 * separate `bun src/main.ts import` process (running while it runs; runs, rows, files, duration,
 * last run, data version and per-chain freshness after it), a quota refusal and a rate-limit
 * refusal. Every scrape must be valid Prometheus text exposition (checked by `validate`).
 */
const root = tempRoot("metrics-live");
let day2 = "";
let dataDir = "";
let freeKey = "";
let basicKey = "";
let barcode = "";
let server: ServeProcess;
const logs = () => server?.logs() ?? "";
afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Strict check of the Prometheus text format (0.0.4): HELP and TYPE once per family and before
 * its samples, metric and label names and escaped label values well formed, values numbers,
 * no series twice; histograms with cumulative buckets ending in le="+Inf" equal to _count, and _sum.
 */
function validate(text: string): Sample[] {
  expect(text.endsWith("\n")).toBe(true);
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const seen = new Set<string>();
  const samples: Sample[] = [];
  const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) {
      const name = line.split(" ")[2]!;
      expect(NAME.test(name)).toBe(true);
      expect(helps.has(name)).toBe(false);
      helps.add(name);
      continue;
    }
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      expect(["counter", "gauge", "histogram", "summary", "untyped"]).toContain(type!);
      expect(types.has(name!)).toBe(false);
      types.set(name!, type!);
      continue;
    }
    expect(line.startsWith("#")).toBe(false);
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const [, name, , body, value] = m;
    const labels: Record<string, string> = {};
    if (body) {
      const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
      let at = 0;
      while (at < body.length) {
        label.lastIndex = at;
        const l = label.exec(body);
        if (!l) throw new Error(`bad labels: ${line}`);
        expect(labels[l[1]!]).toBeUndefined();
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
        at = label.lastIndex;
      }
    }
    expect(/^([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?|[+-]Inf|NaN)$/.test(value!)).toBe(true);
    const family = types.has(name!) ? name! : name!.replace(/_(bucket|sum|count)$/, "");
    if (!types.has(family)) throw new Error(`sample before its TYPE: ${line}`);
    if (family !== name) expect(types.get(family)).toBe("histogram");
    expect(helps.has(family)).toBe(true);
    expect(seen.has(`${name}${body ?? ""}`)).toBe(false);
    seen.add(`${name}${body ?? ""}`);
    samples.push({ name: name!, labels, value: value === "+Inf" ? Infinity : value === "-Inf" ? -Infinity : Number(value) });
  }
  // Histograms.
  for (const [family, type] of types) {
    if (type !== "histogram") continue;
    const series = new Map<string, Sample[]>();
    for (const s of samples.filter((s) => s.name === `${family}_bucket`)) {
      const { le, ...rest } = s.labels;
      expect(le).toBeDefined();
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), s]);
    }
    for (const [key, buckets] of series) {
      const les = buckets.map((b) => (b.labels.le === "+Inf" ? Infinity : Number(b.labels.le)));
      for (let i = 1; i < buckets.length; i++) {
        expect(les[i]!).toBeGreaterThan(les[i - 1]!);
        expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
      }
      expect(buckets.at(-1)!.labels.le).toBe("+Inf");
      const count = samples.find((s) => s.name === `${family}_count` && JSON.stringify(s.labels) === key);
      const sum = samples.find((s) => s.name === `${family}_sum` && JSON.stringify(s.labels) === key);
      expect(count?.value).toBe(buckets.at(-1)!.value);
      expect(sum).toBeDefined();
    }
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v) && Object.keys(s.labels).length === Object.keys(labels).length)?.value;
}

async function scrape(): Promise<Sample[]> {
  const res = await fetch(server.metricsUrl!);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return validate(await res.text());
}

beforeAll(async () => {
  const imported = await dayOneImported(root, { stores: 10, itemsPerStore: 1000, products: 4000, chains: 3, promos: true });
  ({ day2, dataDir, barcode } = imported);
  const db = imported.db;
  const free = createAccount(db.accounts, { email: "free@example.com", plan: "free" }, new Date());
  freeKey = createKey(db.accounts, { accountId: free.id, kind: "live" }, new Date()).key;
  const basic = createAccount(db.accounts, { email: "basic@example.com", plan: "basic" }, new Date());
  basicKey = createKey(db.accounts, { accountId: basic.id, kind: "live" }, new Date()).key;
  db.prices.close();
  db.accounts.close();

  server = await ServeProcess.start({ dataDir, env: { MEHIR_QUOTA_FREE: "2", MEHIR_RATE_BASIC: "2" } });
  await withLogs(logs, async () => void (await server.ready()))();
}, 180_000);

test("quota and rate-limit refusals are counted as they happen", withLogs(logs, async () => {
  const before = await scrape();
  expect(value(before, "mehir_quota_rejections_total")).toBe(0);
  expect(value(before, "mehir_rate_limited_total")).toBe(0);
  const statuses = [];
  for (const key of [freeKey, freeKey, freeKey, basicKey, basicKey, basicKey]) {
    const res = await fetch(`${server.url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
    statuses.push(`${res.status} ${res.status === 429 ? ((await res.json()) as { code: string }).code : ""}`.trim());
  }
  // Free: 2 calls a month; Basic: 2 a minute (the burst may be smaller than the minute's rate).
  expect(statuses.slice(0, 3)).toEqual(["200", "200", "429 quota_exceeded"]);
  const limited = statuses.filter((s) => s === "429 rate_limited").length;
  expect(limited).toBeGreaterThanOrEqual(1);
  expect(statuses.slice(3).filter((s) => s === "200").length).toBe(3 - limited);
  // Requests are counted after their answer is sent: scrape until all six are.
  let after = await scrape();
  while (value(after, "mehir_http_request_duration_seconds_count", { route: "/api/v1/prices" }) !== 6) after = await scrape();
  expect(value(after, "mehir_quota_rejections_total")).toBe(1);
  expect(value(after, "mehir_rate_limited_total")).toBe(limited);
  expect(value(after, "mehir_http_requests_total", { method: "GET", route: "/api/v1/prices", status: "429" })).toBe(1 + limited);
  expect(value(after, "mehir_http_requests_total", { method: "GET", route: "/api/v1/prices", status: "200" })).toBe(5 - limited);
  expect(value(after, "mehir_http_request_duration_seconds_count", { route: "/api/v1/prices" })).toBe(6);
}));

test("an import in a separate `mehir import` process: running while it runs, then runs, rows, files, duration, data version and per-chain freshness", withLogs(logs, async () => {
  const before = await scrape();
  expect(value(before, "mehir_import_running")).toBe(0);
  const chains = before.filter((s) => s.name === "mehir_chain_last_data_timestamp_seconds").map((s) => s.labels.chain!);
  expect(chains.length).toBe(3);

  const followed = server.nextLine((line) => line.includes('"msg":"data version changed"'));
  const child = Bun.spawn([process.execPath, MAIN, "import", day2, "--data-dir", dataDir, "--json"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, MEHIR_IMPORT_PRIORITY: "normal" },
  });
  const output = new Response(child.stdout).text();
  const errors = new Response(child.stderr).text();
  let exited = false;
  void child.exited.then(() => (exited = true));
  let sawRunning = false;
  while (!exited) {
    if (value(await scrape(), "mehir_import_running") === 1) sawRunning = true;
    await Bun.sleep(10);
  }
  expect(await child.exited, await errors).toBe(0);
  const report = JSON.parse(await output) as ImportReport;
  expect(sawRunning).toBe(true);

  // The server follows the data version (it polls it every second).
  await followed;
  const after = await scrape();
  expect(value(after, "mehir_import_running")).toBe(0);
  const cli = { origin: "cli" };
  expect(value(after, "mehir_import_runs_total", { origin: "cli", status: "ok" })).toBe(value(before, "mehir_import_runs_total", { origin: "cli", status: "ok" })! + 1);
  expect(value(after, "mehir_import_rows_total", cli)).toBe(value(before, "mehir_import_rows_total", cli)! + report.totals.rows);
  expect(value(after, "mehir_import_files_total", cli)).toBe(value(before, "mehir_import_files_total", cli)! + report.totals.files);
  expect(value(after, "mehir_import_duration_seconds_count", cli)).toBe(value(before, "mehir_import_duration_seconds_count", cli)! + 1);
  expect(value(after, "mehir_import_last_rows")).toBe(report.totals.rows);
  expect(value(after, "mehir_import_last_success_timestamp_seconds")).toBe(Date.parse(report.finishedAt) / 1000);
  expect(value(after, "mehir_data_version")).toBe(value(before, "mehir_data_version")! + 1);
  // Day 2's files are newer: every chain's newest data moved on and its age went down.
  for (const chain of chains) {
    expect(value(after, "mehir_chain_last_data_timestamp_seconds", { chain })!).toBeGreaterThan(value(before, "mehir_chain_last_data_timestamp_seconds", { chain })!);
    expect(value(after, "mehir_chain_data_age_seconds", { chain })!).toBeLessThan(value(before, "mehir_chain_data_age_seconds", { chain })!);
  }
}), 180_000);
