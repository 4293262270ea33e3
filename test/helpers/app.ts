import { createApp } from "../../src/app.ts";
import { loadSettings, type Settings } from "../../src/config.ts";
import { openMemory } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DataState, bumpDataVersion } from "../../src/data-state.ts";
import { ColdBudget } from "../../src/http/answers/cold-budget.ts";
import { loadRegistry } from "../../src/registry.ts";
import { createServices, type ServiceOptions, type Services } from "../../src/services.ts";

export const FIXED_NOW = new Date("2026-11-22T10:00:00Z");

/**
 * An app on fresh in-memory databases; `now` pinned unless given. Its cold budget is as good as
 * unlimited (a quiet server's: a new data version is answered at once), not one measured on this
 * thread's CPU time — the test runner's own work would make it serve previous answers at random.
 * Tests of the budget pass their own (`coldBudget`).
 */
export function testApp(overrides: ServiceOptions & { settings?: Settings } = {}) {
  const db = openMemory();
  const registry = loadRegistry();
  const chainIds = syncRegistry(db.prices, registry);
  const { settings = loadSettings({}), ...options } = overrides;
  const deps = createServices(settings, db, {
    registry,
    data: new DataState(db.prices),
    now: () => FIXED_NOW,
    coldBudget: new ColdBudget(1_000_000),
    ...options,
  });
  const app = createApp(deps);
  return { app, deps, db, chainIds };
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
