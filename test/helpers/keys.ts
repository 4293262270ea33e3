import type { Services } from "../../src/services.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";

let counter = 0;

/**
 * Headers carrying a test secret key (`sk_test_`: never counted against the quota) of a new
 * account on the given plan, created in the app's accounts database.
 */
export async function withKey(deps: Pick<Services, "db">, plan: "free" | "basic" | "pro", kind: "test" | "live" = "test"): Promise<Record<string, string>> {
  const account = createAccount(deps.db.accounts, { email: `tester${++counter}-${plan}@example.com`, plan }, new Date());
  const { key } = createKey(deps.db.accounts, { accountId: account.id, kind }, new Date());
  return { "x-api-key": key };
}
