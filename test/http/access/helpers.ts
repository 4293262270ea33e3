import { createApp } from "../../../src/app.ts";
import { createServices, type Services } from "../../../src/services.ts";
import { loadSettings } from "../../../src/config.ts";
import { openMemory, type Databases } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { DataState, bumpDataVersion } from "../../../src/data-state.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { ColdBudget } from "../../../src/http/answers/cold-budget.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { createAccount } from "../../../src/accounts/accounts.ts";
import { createKey } from "../../../src/accounts/keys.ts";
import { createAccessService } from "../../../src/http/access/service.ts";
import type { KeyKind } from "../../../src/accounts/key-format.ts";
import type { Plan } from "../../../src/accounts/plans.ts";
import { Fixture } from "../../helpers/fixture.ts";

export const NOW = new Date("2026-11-22T10:00:00Z");
export const MILK = "7290000066318";

/** An app for access tests: settings from MEHIR_* values, time pinned (changeable through `clock.now`). */
export function accessApp(env: Record<string, string> = {}, options: { db?: Databases; trustProxy?: boolean; limiterClock?: () => number } = {}) {
  const db = options.db ?? openMemory();
  const registry = loadRegistry();
  const chainIds = syncRegistry(db.prices, registry);
  const clock = { now: NOW };
  const deps = createServices(loadSettings({ MEHIR_TRUST_PROXY: options.trustProxy ? "on" : "off", ...env }), db, {
    registry,
    data: new DataState(db.prices),
    now: () => clock.now,
    // A quiet server's cold budget (a new data version answered at once), as testApp's: one measured
    // on this thread's CPU time would serve the previous answer whenever the machine is busy.
    coldBudget: new ColdBudget(1_000_000),
    access: options.limiterClock ? createAccessService(db.accounts, { clock: options.limiterClock }) : undefined,
  });
  const app = createApp(deps);
  return { app, deps, db, chainIds, clock };
}

/** One product with a price in one store, committed as an import would. */
export function importMilk(ctx: ReturnType<typeof accessApp>): void {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  f.price(f.store("shufersal", "1"), f.product(MILK, "חלב 3%"), 690);
  refreshChainProducts(ctx.db.prices);
  bumpDataVersion(ctx.db.prices, "2026-11-22T05:30:00+02:00", "demo");
  ctx.deps.data.refresh();
}

let counter = 0;

/** A new account on `plan` with one key of `kind`. */
export function newKey(deps: Services, plan: Plan, kind: KeyKind, origins: string[] = []) {
  const account = createAccount(deps.db.accounts, { email: `a${++counter}@example.com`, plan }, NOW);
  const { key, record } = createKey(deps.db.accounts, { accountId: account.id, kind, origins }, NOW);
  return { key, keyId: record.id, accountId: account.id, email: account.email };
}

/** Another key on the same account. */
export function extraKey(deps: Services, accountId: number, kind: KeyKind, origins: string[] = []) {
  const { key, record } = createKey(deps.db.accounts, { accountId, kind, origins }, NOW);
  return { key, keyId: record.id };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(app: { handle(r: Request): Promise<Response> }, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await app.handle(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let body: any = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

export const withApiKey = (key: string, extra: Record<string, string> = {}): RequestInit => ({ headers: { "x-api-key": key, ...extra } });

/** onAfterResponse (refunds) runs after the answer is handed back. */
export const settle = () => Bun.sleep(5);

/** A new data version with the same data (as a re-import would). */
export function bumpVersion(ctx: ReturnType<typeof accessApp>): void {
  bumpDataVersion(ctx.db.prices, "2026-11-23T05:30:00+02:00", "demo");
  ctx.deps.data.refresh();
}
