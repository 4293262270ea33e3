import type { Services } from "../../src/services.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import type { KeyKind } from "../../src/accounts/key-format.ts";
import type { Plan } from "../../src/accounts/plans.ts";

let counter = 0;

/**
 * A key of `kind` (default `sk_test_`: never counted against the quota) on a new account on `plan`,
 * or on the existing account `accountId`, created at the app's time in its accounts database.
 * Returns the key text, its record, the account, and headers carrying it.
 */
export function newKey(
  deps: Pick<Services, "db" | "now">,
  plan: Plan = "pro",
  kind: KeyKind = "test",
  options: { email?: string; origins?: string[]; accountId?: number } = {},
) {
  const now = deps.now();
  const accountId = options.accountId ?? createAccount(deps.db.accounts, { email: options.email ?? `tester${++counter}-${plan}@example.com`, plan }, now).id;
  const { key, record } = createKey(deps.db.accounts, { accountId, kind, origins: options.origins ?? [] }, now);
  return { key, record, keyId: record.id, accountId, headers: { "x-api-key": key } as Record<string, string> };
}
