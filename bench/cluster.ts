/**
 * The scale-out cluster's throughput and the cost of Redis per request (docs/operations.md "Scale out").
 * On loopback, random ports, own folders: redis-server; the same small demo data served by
 *   1. a standalone server (no Redis): the baseline;
 *   2. a standalone server with MEHIR_REDIS_URL: every keyed call runs the metering script —
 *      the Redis round trip's cost per request;
 *   3. a primary and two replicas with Redis, behind nginx (deploy/nginx-cluster.conf's layout);
 *   4. nginx in front of the standalone server (the proxy's own cost).
 * wrk (one thread) asks GET /api/v1/prices/?barcode=… with a live key, round-robin over the most
 * widely sold barcodes. On one 2-core machine the replicas share the cores: the cluster row shows
 * the cost of the layout, not the gain of more hosts.
 *
 *   bun bench/cluster.ts [--seconds 10] [--connections 32] [--no-write]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { flag, numberOption } from "./lib/args.ts";
import { findWrk, runWrk } from "./lib/wrk.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const seconds = numberOption(args, "seconds", 10);
const connections = numberOption(args, "connections", 32);
const say = (msg: string) => console.error(`[cluster] ${msg}`);
const MAIN = join(import.meta.dir, "../src/main.ts");
const SECRET = "bench-cluster-secret-0123456789abcdef0123";
const root = mkdtempSync(join(tmpdir(), "mehir-bench-cluster-"));
const children: ReturnType<typeof Bun.spawn>[] = [];

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

function cli(...a: string[]): string {
  const out = Bun.spawnSync([process.execPath, MAIN, ...a], { stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) throw new Error(`mehir ${a.join(" ")}: ${out.stderr}`);
  return out.stdout.toString();
}

async function until(ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await Bun.sleep(100);
  }
  throw new Error("timed out");
}

async function serve(name: string, env: Record<string, string>): Promise<{ url: string; pid: number; port: number }> {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, MAIN, "serve"], {
    env: { ...process.env, MEHIR_LOG_LEVEL: "warn", MEHIR_HOST: "127.0.0.1", MEHIR_PORT: String(port), MEHIR_METRICS_ADDR: "127.0.0.1:0", MEHIR_DATA_DIR: join(root, name), MEHIR_EXPORTS: "off", MEHIR_QUOTA_PRO: "1000000000", MEHIR_RATE_PRO: "100000000", MEHIR_CLUSTER_SECRET: SECRET, ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  children.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await until(120_000, async () => (await fetch(`${url}/readyz`)).status === 200);
  return { url, pid: proc.pid, port };
}

function nginxFor(upstreams: number[]): Promise<{ url: string; pid: number }> {
  return (async () => {
    const port = await freePort();
    const dir = join(root, `nginx-${port}`);
    mkdirSync(dir);
    const conf = `pid ${dir}/pid; error_log ${dir}/error.log; daemon off; worker_processes 1;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  upstream mehir { ${upstreams.map((p) => `server 127.0.0.1:${p};`).join(" ")} keepalive 64; }
  server { listen 127.0.0.1:${port};
    location / { proxy_pass http://mehir; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header X-Request-Id $request_id;
      proxy_next_upstream error timeout http_502 http_503 http_504; } } }`;
    writeFileSync(join(dir, "nginx.conf"), conf);
    const proc = Bun.spawn(["nginx", "-c", join(dir, "nginx.conf"), "-p", dir], { stdout: "ignore", stderr: "inherit" });
    children.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await until(10_000, async () => (await fetch(`${url}/healthz`)).status === 200);
    return { url, pid: proc.pid };
  })();
}

function liveKey(dataDir: string): string {
  const email = `bench-${crypto.randomUUID().slice(0, 8)}@example.com`;
  cli("accounts", "create", "--data-dir", dataDir, "--email", email, "--plan", "pro");
  return cli("keys", "create", "--data-dir", dataDir, "--email", email, "--kind", "live").trim().split("\n").at(-1)!.trim();
}

try {
  const wrk = findWrk();
  if ("skip" in wrk) throw new Error(wrk.skip);
  if (!Bun.which("redis-server") || !Bun.which("nginx")) throw new Error("redis-server and nginx are needed (Debian packages)");
  const redisPort = await freePort();
  const redis = Bun.spawn(["redis-server", "--bind", "127.0.0.1", "--port", String(redisPort), "--dir", root, "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "inherit" });
  children.push(redis);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;

  say("demo data (scale 0.1)");
  cli("demo", "--out", join(root, "demo"), "--scale", "0.1");
  for (const dir of ["standalone", "standalone-redis", "primary"]) cli("import", join(root, "demo"), "--data-dir", join(root, dir), "--source", "demo");
  const db = new Database(join(root, "standalone", "prices.sqlite"), { readonly: true });
  const barcodes = (db.query("SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id GROUP BY p.id ORDER BY count(*) DESC LIMIT 200").all() as { barcode: string }[]).map((r) => r.barcode);
  db.close();
  const paths = barcodes.map((b) => `/api/v1/prices/?barcode=${b}`);

  say("servers");
  const standalone = await serve("standalone", {});
  const withRedis = await serve("standalone-redis", { MEHIR_REDIS_URL: redisUrl });
  // Standalone with Redis and the cluster share one Redis: distinct keys, distinct accounts.
  const primary = await serve("primary", { MEHIR_ROLE: "primary", MEHIR_REDIS_URL: redisUrl });
  const replicas = [await serve("replica1", { MEHIR_ROLE: "replica", MEHIR_PRIMARY_URL: primary.url, MEHIR_REDIS_URL: redisUrl }), await serve("replica2", { MEHIR_ROLE: "replica", MEHIR_PRIMARY_URL: primary.url, MEHIR_REDIS_URL: redisUrl })];
  const clusterProxy = await nginxFor(replicas.map((r) => r.port));
  const standaloneProxy = await nginxFor([standalone.port]);
  const keys = { standalone: liveKey(join(root, "standalone")), redis: liveKey(join(root, "standalone-redis")), cluster: liveKey(join(root, "primary")) };
  // The primary mirrors a new key into Redis within a second.
  await until(10_000, async () => (await fetch(`${clusterProxy.url}${paths[0]}`, { headers: { "x-api-key": keys.cluster } })).status === 200);

  const rows: { name: string; url: string; key: string; pids: number[] }[] = [
    { name: "standalone (no Redis) — baseline", url: standalone.url, key: keys.standalone, pids: [standalone.pid] },
    { name: "standalone with Redis (metering script per call)", url: withRedis.url, key: keys.redis, pids: [withRedis.pid] },
    { name: "nginx → standalone (no Redis)", url: standaloneProxy.url, key: keys.standalone, pids: [standalone.pid] },
    { name: "nginx → 2 replicas with Redis (cluster)", url: clusterProxy.url, key: keys.cluster, pids: replicas.map((r) => r.pid) },
  ];
  const results: (string | number)[][] = [];
  let base = 0;
  for (const row of rows) {
    say(row.name);
    // Warm-up: every path once, so the rows compare cached answers.
    for (const p of paths) await (await fetch(row.url + p, { headers: { "x-api-key": row.key } })).arrayBuffer();
    const { report } = await runWrk(wrk.path, { baseUrl: row.url, paths, headers: { "x-api-key": row.key }, connections, seconds }, row.pids[0]!);
    if (base === 0) base = report.requestsPerSecond;
    // Throughput cost: the machine's time per request beyond the baseline's (1/req/s difference).
    const perRequestUs = 1e6 / report.requestsPerSecond - 1e6 / base;
    results.push([row.name, Math.round(report.requestsPerSecond).toLocaleString("en-US"), `${Math.round((report.requestsPerSecond / base) * 100)} %`, report.latency.p50.toFixed(2), report.latency.p99.toFixed(2), report.errors, base === report.requestsPerSecond ? "—" : `${Math.round(perRequestUs)}`]);
  }
  const load = loadavg().map((v) => v.toFixed(2)).join(" ");
  const body = [
    machineLine(`demo scale 0.1, ${connections} connections, ${seconds} s per row, wrk 1 thread, load average at the end ${load}`),
    "",
    table(["setup", "req/s", "vs baseline", "p50 ms", "p99 ms", "errors", "time per request beyond baseline µs"], results),
    "",
    "GET /api/v1/prices/?barcode= with a live key (counted), round-robin over the 200 most widely sold barcodes, each answered once before the row (cached answers). " +
      "Every server, nginx, Redis and wrk share the same 2 cores: the cluster row measures what the layout costs (proxy hop, metering script), not what more hosts add. " +
      "The Redis row's difference from the baseline is the metering script's round trip per request (one EVALSHA: token bucket, quota counter, request id).",
  ].join("\n");
  console.log(body);
  if (!flag(args, "no-write")) writeSection("Cluster", body);
} finally {
  for (const c of children) c.kill(9);
  await Promise.all(children.map((c) => c.exited));
  rmSync(root, { recursive: true, force: true });
}
