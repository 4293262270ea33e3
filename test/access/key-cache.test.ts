/**
 * KeyCache sees keys and plans changed by another connection (the operator CLI in another process)
 * at the first lookup one poll (250 ms) after its last check — on a clock of the test's own, so the
 * bound holds whatever the machine's load (test/cli/keys-live-server.test.ts runs the processes).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";
import { createAccount, setPlan } from "../../src/accounts/accounts.ts";
import { createKey, revokeKeyById } from "../../src/accounts/keys.ts";
import { KeyCache } from "../../src/access/key-cache.ts";

const dir = mkdtempSync(join(tmpdir(), "mehir-key-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a change committed by another connection shows at the first lookup 250 ms after the last check, not before", () => {
  const path = join(dir, "accounts.sqlite");
  const server = openDatabase(path, ACCOUNT_MIGRATIONS);
  const cli = openDatabase(path, ACCOUNT_MIGRATIONS);
  const now = new Date("2026-11-22T08:00:00Z");
  const account = createAccount(cli, { email: "ops@example.com" }, now);
  const { key, record } = createKey(cli, { accountId: account.id, kind: "live" }, now);
  let clock = 0;
  const cache = new KeyCache(server, { clock: () => clock });

  expect(cache.lookup(key)?.plan).toBe("free");
  setPlan(cli, "ops@example.com", "basic");
  clock = 249;
  expect(cache.lookup(key)?.plan).toBe("free"); // checked at 0: not yet
  clock = 250;
  expect(cache.lookup(key)?.plan).toBe("basic");

  revokeKeyById(cli, record.id, now);
  clock = 499;
  expect(cache.lookup(key)).not.toBeNull();
  clock = 500;
  expect(cache.lookup(key)).toBeNull();
  server.close();
  cli.close();
});
