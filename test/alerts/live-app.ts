import { createApp } from "../../src/app.ts";
import { createServices, type Services } from "../../src/services.ts";
import type { AlertServiceOptions } from "../../src/alerts/alert-service.ts";
import { loadSettings } from "../../src/config.ts";
import { DataState } from "../../src/data-state.ts";
import { openDataDir } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { loadRegistry } from "../../src/registry.ts";
import type { ManualTimers } from "./manual-timers.ts";

/**
 * The app as `mehir serve` builds it on a data dir (its own connections; loopback webhooks
 * allowed, as MEHIR_WEBHOOK_ALLOW_LOOPBACK=on does), with the alert service on manual timers.
 * `close()` is the restart's first half: timers stopped, databases closed; nothing stays in memory.
 */
export function alertApp(dataDir: string, timers: ManualTimers, options: AlertServiceOptions = {}) {
  const db = openDataDir(dataDir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  const deps = createServices(loadSettings({ MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_RATE_PRO: "100000", MEHIR_DATA_DIR: dataDir }), db, {
    registry,
    data: new DataState(db.prices),
    now: () => new Date(timers.now()),
    alerts: { timers, random: () => 0.5, ...options },
  });
  const app = createApp(deps);
  return {
    app,
    deps,
    alerts: deps.alerts,
    close() {
      deps.alerts!.stop();
      deps.access?.flush();
      db.prices.close();
      db.accounts.close();
    },
  };
}

/** A Pro account with a secret key, in the app's accounts database. */
export function proKey(deps: Services, email = "alerts@example.com", plan: "free" | "basic" | "pro" = "pro", kind: "live" | "test" = "live"): string {
  const account = createAccount(deps.db.accounts, { email, plan }, new Date());
  return createKey(deps.db.accounts, { accountId: account.id, kind }, new Date()).key;
}

export async function call(app: { handle(r: Request): Promise<Response> }, method: string, path: string, key: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (key) headers["x-api-key"] = key;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) }));
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}
