import type { Database } from "bun:sqlite";
import { createAccount } from "../../accounts/accounts.ts";
import { createKey } from "../../accounts/keys.ts";
import { SELF_ORIGIN } from "../../accounts/origins.ts";
import { toIsraelIso } from "../../lib/time.ts";

const PURPOSE = "widget-demo";

/**
 * The publishable key the demo page /widget/v1/demo.html embeds, so the widget shows out of the
 * box. Made once, on first use, and kept in `service_keys` (raw: a publishable key is public by
 * nature). It belongs to its own account, which has no password (nobody can sign in to it), and
 * it allows only the service's own origin (`"self"`: whatever host the service was reached at), so
 * other sites cannot spend its widget quota from their pages. Like every publishable key it works
 * on the widget data endpoint only. An operator who revokes it (`mehir keys revoke pk_live_…`)
 * turns the demo off: it is not made again, and the demo page asks for a key instead.
 *
 * @example demoWidgetKey(db.accounts, new Date()) // "pk_live_3fQ…" (the same text on every call)
 */
export function demoWidgetKey(accounts: Database, now: Date): string | null {
  return accounts.transaction(() => {
    const stored = accounts
      .query(
        `SELECT s.raw_key, k.revoked_at FROM service_keys s JOIN api_keys k ON k.id = s.key_id WHERE s.purpose = ?`,
      )
      .get(PURPOSE) as { raw_key: string; revoked_at: string | null } | null;
    if (stored) return stored.revoked_at === null ? stored.raw_key : null;
    // A random local part: never collides with an address someone signed up with.
    const suffix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
    const account = createAccount(accounts, { email: `widget-demo-${suffix}@mehir.invalid`, plan: "free", passwordHash: null }, now);
    const { key, record } = createKey(accounts, { accountId: account.id, kind: "publishable", name: "widget demo page (made by the service)", origins: [SELF_ORIGIN] }, now);
    accounts.query("INSERT INTO service_keys (purpose, key_id, raw_key, created_at) VALUES (?, ?, ?, ?)").run(PURPOSE, record.id, key, toIsraelIso(now));
    return key;
  }).immediate();
}
