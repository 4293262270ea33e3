import type { Settings } from "./config.ts";
import { createApp } from "./app.ts";
import { createServices, type Services } from "./services.ts";
import { openDataDir } from "./db/open.ts";
import { loadRegistry } from "./registry.ts";
import { syncRegistry } from "./db/sync-registry.ts";
import { DataState } from "./data/data-state.ts";
import { log, setLogFormat, setLogLevel } from "./lib/log.ts";
import { startDataSource, type RunningDataSource } from "./data/data-source.ts";
import { liveCollector } from "./ingest/sources/live-collector.ts";
import { join } from "node:path";
import { openSandboxDatabase, Sandbox, SANDBOX_FILE } from "./sandbox/sandbox.ts";
import { ACCOUNTS_FILE, PRICES_FILE } from "./db/open.ts";
import { checkDatabaseOffThread } from "./db/integrity-check.ts";
import { ExportScheduler } from "./exports/scheduler.ts";
import { EXPORTS_DIR, ExportStore } from "./exports/store.ts";
import { startClusterRole, type RunningRole } from "./cluster/cluster-role.ts";
import { createSharedAccess } from "./cluster/redis/shared-access.ts";
import { warmUp } from "./http/warm-up.ts";
import { listenOptions, splitAddress } from "./http/listen-options.ts";
import { listenOrExplain } from "./http/listen-error.ts";
import { afterAnswersQueued, lastResortAnswer } from "./http/last-resort.ts";
import { warmPriceIndex } from "./modules/price-index/warm.ts";

export interface RunningServer {
  url: string;
  /** The metrics listener's /metrics (null with MEHIR_METRICS=off). */
  metricsUrl: string | null;
  deps: Services;
  /** Writes the daily exports (null with MEHIR_EXPORTS=off). */
  exporter: ExportScheduler | null;
  /** The national price index computed ahead after every import: `settled()` once no pass is under way. */
  priceIndex: { settled(): Promise<void> };
  /** The demo first start or the live fetch schedule. */
  source: RunningDataSource;
  /** What MEHIR_ROLE adds: a primary's snapshot publisher, a replica's follower. */
  role: RunningRole;
  /** Resolves after a graceful stop (SIGTERM/SIGINT or stop()). */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Opens the data dir, builds the app and listens. Background work (demo import on first
 * start, search index rebuilds when the data version changes, daily fetch in live mode)
 * runs without blocking requests.
 */
export async function startServer(settings: Settings): Promise<RunningServer> {
  setLogLevel(settings.logLevel);
  setLogFormat(settings.logFormat);
  const db = openDataDir(settings.dataDir);
  // Damaged pages are never served (nor /readyz green): `PRAGMA quick_check` of both databases, in
  // a worker, before anything reads them (about a second per GB). A replica's local database holds
  // nothing (it serves snapshots, checked when downloaded).
  if (settings.role !== "replica") {
    try {
      await Promise.all([checkDatabaseOffThread(join(settings.dataDir, PRICES_FILE)), checkDatabaseOffThread(join(settings.dataDir, ACCOUNTS_FILE))]);
    } catch (error) {
      db.prices.close();
      db.accounts.close();
      log.error("database damaged: not serving", { error: (error as Error).message });
      throw error;
    }
  }
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  const data = new DataState(db.prices);
  // Test mode's data, beside the live data and never mixed with it (see src/sandbox/sandbox.ts).
  const sandboxDb = openSandboxDatabase(join(settings.dataDir, SANDBOX_FILE), registry);
  const sandbox = new Sandbox({ db: sandboxDb, registry, dataDir: settings.dataDir, log: log.info, error: log.error, importPriority: settings.importPriority });
  const exportsDir = join(settings.dataDir, EXPORTS_DIR);
  // MEHIR_REDIS_URL: keys, quotas and rate limits shared through Redis (docs/operations.md "Scale out").
  const shared = createSharedAccess(settings, db, log);
  const deps = createServices(settings, db, { registry, data, sandbox, exports: new ExportStore(exportsDir), ...(shared ? { access: shared.access } : {}) });
  const app = createApp(deps);
  const role = startClusterRole(deps, app, log);
  shared?.start();
  deps.roleMetrics = role.metrics;
  // A replica serves its primary's snapshots only: no import, export or sandbox of its own.
  const replica = settings.role === "replica";
  // The first probe after listening is answered warm (src/http/warm-up.ts).
  await warmUp(app);
  listenOrExplain(() => app.listen(listenOptions(settings)), { port: settings.port, host: settings.host, setting: "--port / MEHIR_PORT; MEHIR_REUSE_PORT=on shares a port on purpose" });
  const url = `http://${settings.host === "0.0.0.0" ? "127.0.0.1" : settings.host}:${app.server!.port}`;
  // GET /metrics on a listener of its own, loopback by default (what it shows is the operator's).
  let metricsServer: ReturnType<typeof Bun.serve> | null = null;
  if (deps.metricsEndpoint) {
    const { hostname, port } = splitAddress(settings.metricsAddr);
    const fetchMetrics = deps.metricsEndpoint;
    try {
      metricsServer = listenOrExplain(() => Bun.serve({ hostname, port, reusePort: false, development: false, fetch: fetchMetrics, error: lastResortAnswer }), { port, host: hostname, setting: "--metrics-addr / MEHIR_METRICS_ADDR, or MEHIR_METRICS=off" });
    } catch (error) {
      await app.stop();
      throw error;
    }
  }
  const metricsUrl = metricsServer ? `http://${settings.metricsAddr.startsWith("[") ? `[${metricsServer.hostname}]` : metricsServer.hostname}:${metricsServer.port}/metrics` : null;
  log.info("listening", { url, metrics_url: metricsUrl, data_dir: settings.dataDir, role: settings.role, source: settings.source, data_version: data.current.version });

  // A dated export after every import (and at start when the data has none yet), in a worker.
  const exporter = settings.exports && !replica
    ? new ExportScheduler({ dbPath: join(settings.dataDir, PRICES_FILE), exportsDir, keepDays: settings.exportDays, priority: settings.importPriority, info: log.info, error: log.error })
    : null;
  if (exporter) {
    data.onChange(() => exporter.request());
    if (data.hasData && deps.exports!.list()[0]?.data_version !== data.current.version) exporter.request();
  }

  // The national price index computed ahead after every import (and at start), in a worker at the imports' priority.
  const priceIndex = warmPriceIndex(deps.dataSets.live, settings.importPriority);

  // Follow imports made by this process's worker or by `mehir import` in another process.
  const poll = setInterval(() => {
    if (data.refresh()) log.info("data version changed", { data_version: data.current.version });
  }, 1000);

  const collector = !replica && settings.source === "live" ? liveCollector(settings, db, registry) : null;
  const source: RunningDataSource = replica ? { ready: Promise.resolve(), stop() {} } : startDataSource({
    settings,
    db,
    registry,
    data,
    // Downloads, then imports in a worker as live data (replacing demo data, never mixing).
    // Each run fetches the due chains (today and the backfill days), then imports in a worker.
    fetchLive: async (onCommitted) => void (await collector!.collect(onCommitted)),
    info: log.info,
    error: log.error,
  });

  // One line says when the API answers with data (/readyz 200: data imported, search index built):
  // soon after start on a data dir that has data, else after the first start's demo import or
  // live collection (a replica: after its first snapshot).
  let announced = false;
  const announceReady = () => {
    if (announced || !data.hasData || !deps.search.ready) return;
    announced = true;
    log.info("ready", { url, docs: `${url}/docs`, portal: `${url}/portal/`, data_version: data.current.version });
  };
  deps.search.onBuilt(announceReady);
  announceReady();

  // A server whose live data is (or will be) the chains' own makes the sandbox at start, off the
  // serving thread, unless it exists; on the demo data test keys read the demo and none is made.
  if (!replica && (settings.source === "live" || data.current.source === "live")) void sandbox.ensure();

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping = false;
  const stop = async () => {
    if (stopping) return stopped;
    stopping = true;
    clearInterval(poll);
    role.stop();
    await shared?.stop();
    source.stop();
    exporter?.stop();
    await app.stop();
    await afterAnswersQueued();
    // The app's stop wrote pending usage before those steps ran: a refund they made is written now.
    deps.access.flush();
    await metricsServer?.stop();
    deps.search.stop();
    sandbox.search?.stop();
    db.prices.close();
    db.accounts.close();
    sandboxDb.close();
    log.info("stopped", {});
    resolveStopped();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return { url, metricsUrl, deps, exporter, priceIndex, source, role, stopped, stop };
}
