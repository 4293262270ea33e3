import { createApp } from "../../src/app.ts";
import { loadSettings, type Settings } from "../../src/config.ts";
import { openMemory, type Databases } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DataState, bumpDataVersion } from "../../src/data/data-state.ts";
import { ColdBudget } from "../../src/serving/cold-budget.ts";
import { createAccessService } from "../../src/access/service.ts";
import { loadRegistry } from "../../src/registry.ts";
import { createServices, type ServiceOptions, type Services } from "../../src/services.ts";
import type { ManualTimers } from "./alerts/manual-timers.ts";

export const FIXED_NOW = new Date("2026-11-22T10:00:00Z");

export interface TestAppOptions extends ServiceOptions {
  /** Settings as given; otherwise loaded from `env` (MEHIR_* values). */
  settings?: Settings;
  env?: Record<string, string>;
  /** The databases to serve (e.g. a data dir's); fresh in-memory ones otherwise. */
  db?: Databases;
  /** MEHIR_TRUST_PROXY. */
  trustProxy?: boolean;
  /** The rate limiter's clock (ms), for tests of token refill. */
  limiterClock?: () => number;
  /** The alert service's timers; the app's clock then follows them (`timers.now()`). */
  timers?: ManualTimers;
}

/**
 * The tests' one app: the services `mehir serve` builds, on fresh in-memory databases unless given.
 * Time is pinned to `clock.now` (FIXED_NOW, changeable) unless `now` or `timers` is given. Its cold
 * budget is as good as unlimited (a quiet server's: a new data version is answered at once), not one
 * measured on this thread's CPU time — the test runner's own work would make it serve previous answers
 * at random. Tests of the budget pass their own (`coldBudget`). With `timers`, alert
 * retries are not jittered.
 * `close()` is a restart's first half: timers stopped, databases closed; nothing stays in memory.
 */
export function testApp(options: TestAppOptions = {}) {
  const { settings: given, env = {}, db = openMemory(), trustProxy = false, limiterClock, timers, ...services } = options;
  const registry = loadRegistry();
  const chainIds = syncRegistry(db.prices, registry);
  const clock = { now: FIXED_NOW };
  // Imports and the alerts' evaluation thread at normal CPU priority unless a test says otherwise:
  // at the production default (idle) a busy machine starves them (see test/helpers/setup.ts).
  const settings = given ?? loadSettings({ MEHIR_TRUST_PROXY: trustProxy ? "on" : "off", MEHIR_IMPORT_PRIORITY: "normal", ...env });
  const deps = createServices(settings, db, {
    registry,
    data: new DataState(db.prices),
    now: timers ? () => new Date(timers.now()) : () => clock.now,
    coldBudget: new ColdBudget(1_000_000),
    access: limiterClock ? createAccessService(db.accounts, { clock: limiterClock }) : undefined,
    ...services,
    alerts: timers ? { timers, random: () => 0.5, ...services.alerts } : services.alerts,
  });
  const app = createApp(deps);
  const close = () => {
    deps.alerts?.stop();
    deps.access?.flush();
    deps.search.stop();
    db.prices.close();
    db.accounts.close();
  };
  return { app, deps, db, chainIds, clock, close };
}

/** Marks the data as imported (as an import's commit would). */
export function commitData(deps: { db: Pick<Services["db"], "prices">; data: Pick<Services["data"], "refresh"> }, updatedAt = "2026-11-22T05:00:00+02:00"): void {
  bumpDataVersion(deps.db.prices, updatedAt, "demo");
  deps.data.refresh();
}

export async function get(app: { handle(r: Request): Promise<Response> }, path: string, headers: Record<string, string> = {}) {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers }));
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * Resolves after the onAfterResponse hooks (refunds, metrics, the request log) of the answers
 * already handed back have run: Elysia runs them in a setImmediate queued before the answer is
 * returned, and immediates run in order — so this waits for them however busy the machine is.
 */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
