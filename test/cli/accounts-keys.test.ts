/**
 * The operator CLI for accounts and keys, run in-process against a temporary data dir: output,
 * exit codes, usage errors, and what lands in accounts.sqlite (only the key's SHA-256).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAccounts } from "../../src/cli/accounts.ts";
import { runKeys } from "../../src/cli/keys.ts";
import { UsageError } from "../../src/cli/command.ts";
import { openDataDir } from "../../src/db/open.ts";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
/** A data dir as `mehir serve` leaves it (the commands refuse a folder with no mehir data). */
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mehir-cli-keys-"));
  temps.push(dir);
  const db = openDataDir(dir);
  db.accounts.close();
  db.prices.close();
  return dir;
}

/** Runs a CLI function with stdout and stderr captured. */
async function cli(run: (args: string[]) => Promise<number>, args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (...parts: unknown[]) => void out.push(parts.join(" "));
  console.error = (...parts: unknown[]) => void err.push(parts.join(" "));
  try {
    return { code: await run(args), out, err };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/** Rows of the data dir's accounts database (a connection of its own, closed after). */
function rows(dir: string, sql: string): Record<string, unknown>[] {
  const db = openDataDir(dir);
  try {
    return db.accounts.query(sql).all() as Record<string, unknown>[];
  } finally {
    db.accounts.close();
    db.prices.close();
  }
}

describe("mehir accounts", () => {
  test("create (email normalised, Free by default or --plan), set-plan, list; errors exit 1 with a message", async () => {
    const dir = dataDir();
    const made = await cli(runAccounts, ["create", "--email", " Ops@Example.COM ", "--data-dir", dir]);
    expect(made.code).toBe(0);
    expect(made.out).toEqual(["created account ops@example.com (id 1, plan free)", "to sign in to the portal, give it a password: mehir accounts set-password ops@example.com"]);
    expect((await cli(runAccounts, ["create", "--email", "pro@example.com", "--plan", "pro", "--data-dir", dir])).code).toBe(0);

    const again = await cli(runAccounts, ["create", "--email", "OPS@example.com", "--data-dir", dir]);
    expect(again.code).toBe(1);
    expect(again.err.join("\n")).toContain("already exists");
    const notEmail = await cli(runAccounts, ["create", "--email", "not-an-email", "--data-dir", dir]);
    expect(notEmail.code).toBe(1);

    const upgraded = await cli(runAccounts, ["set-plan", "OPS@example.com", "basic", "--data-dir", dir]);
    expect(upgraded.code).toBe(0);
    expect(upgraded.out).toEqual(["ops@example.com is now on the basic plan"]);
    const nobody = await cli(runAccounts, ["set-plan", "nobody@example.com", "pro", "--data-dir", dir]);
    expect(nobody.code).toBe(1);
    expect(nobody.err.join("\n")).toContain("no account for nobody@example.com");

    expect(rows(dir, "SELECT email, plan, password_hash FROM accounts ORDER BY id")).toEqual([
      { email: "ops@example.com", plan: "basic", password_hash: null },
      { email: "pro@example.com", plan: "pro", password_hash: null },
    ]);
    const list = await cli(runAccounts, ["list", "--data-dir", dir]);
    expect(list.out.map((l) => l.split("\t").slice(0, 4))).toEqual([
      ["1", "ops@example.com", "basic", "0 active key(s)"],
      ["2", "pro@example.com", "pro", "0 active key(s)"],
    ]);
  });

  test("usage errors: missing --email, unknown plan, wrong arity, unknown subcommand", async () => {
    const dir = dataDir();
    await expect(runAccounts(["create", "--data-dir", dir])).rejects.toThrow(UsageError);
    await expect(runAccounts(["create", "--email", "a@example.com", "--plan", "gold", "--data-dir", dir])).rejects.toThrow(UsageError);
    await expect(runAccounts(["set-plan", "a@example.com", "enterprise", "--data-dir", dir])).rejects.toThrow(UsageError);
    await expect(runAccounts(["set-plan", "a@example.com", "--data-dir", dir])).rejects.toThrow(UsageError);
    await expect(runAccounts(["delete", "--data-dir", dir])).rejects.toThrow(UsageError);
    expect(rows(dir, "SELECT count(*) AS n FROM accounts")).toEqual([{ n: 0 }]);
  });
});

describe("mehir keys", () => {
  test("create prints the key once, as the last line; only its SHA-256, prefix and last 4 are stored", async () => {
    const dir = dataDir();
    await cli(runAccounts, ["create", "--email", "ops@example.com", "--data-dir", dir]);
    const made: Record<string, string> = {};
    for (const [kind, prefix] of [["live", "sk_live_"], ["test", "sk_test_"], ["publishable", "pk_live_"]] as const) {
      const res = await cli(runKeys, ["create", "--email", "ops@example.com", "--kind", kind, "--data-dir", dir]);
      expect(res.code).toBe(0);
      const key = res.out.at(-1)!;
      expect(key).toMatch(new RegExp(`^${prefix}[0-9A-Za-z]{32}$`));
      // Shown once: the other lines carry only the masked form.
      expect(res.out.slice(0, -1).join("\n")).not.toContain(key.slice(12, -4));
      expect(res.out[0]).toContain(`${key.slice(0, 12)}…${key.slice(-4)}`);
      made[kind] = key;
    }
    const stored = rows(dir, "SELECT kind, hash, prefix, last4 FROM api_keys ORDER BY id");
    expect(stored).toEqual(
      (["live", "test", "publishable"] as const).map((kind) => ({
        kind,
        hash: new Bun.CryptoHasher("sha256").update(made[kind]!).digest("hex"),
        prefix: made[kind]!.slice(0, 12),
        last4: made[kind]!.slice(-4),
      })),
    );
    const everything = JSON.stringify(rows(dir, "SELECT * FROM api_keys")) + JSON.stringify(rows(dir, "SELECT * FROM accounts"));
    for (const key of Object.values(made)) expect(everything).not.toContain(key.slice(12, -4));

    const list = await cli(runKeys, ["list", "--email", "ops@example.com", "--data-dir", dir]);
    expect(list.code).toBe(0);
    expect(list.out).toHaveLength(3);
    for (const key of Object.values(made)) expect(list.out.join("\n")).not.toContain(key);
    expect(list.out[0]!.split("\t").slice(0, 5)).toEqual([`${made.publishable!.slice(0, 12)}…${made.publishable!.slice(-4)}`, "publishable", "-", "any origin", "active"]);
  });

  test("--origin (repeatable, canonicalised) for publishable keys only; bad values and kinds are usage errors", async () => {
    const dir = dataDir();
    await cli(runAccounts, ["create", "--email", "ops@example.com", "--data-dir", dir]);
    const res = await cli(runKeys, ["create", "--email", "ops@example.com", "--kind", "publishable", "--origin", "https://Shop.Example:443/", "--origin", "http://localhost:3000", "--name", "shop", "--data-dir", dir]);
    expect(res.code).toBe(0);
    expect(res.out).toContain("allowed origins: https://shop.example http://localhost:3000");
    expect(rows(dir, "SELECT allowed_origins, name FROM api_keys")).toEqual([{ allowed_origins: '["https://shop.example","http://localhost:3000"]', name: "shop" }]);

    const base = ["create", "--email", "ops@example.com", "--data-dir", dir];
    await expect(runKeys([...base, "--kind", "live", "--origin", "https://shop.example"])).rejects.toThrow("publishable keys only");
    await expect(runKeys([...base, "--kind", "publishable", "--origin", "https://shop.example/path"])).rejects.toThrow(UsageError);
    await expect(runKeys([...base, "--kind", "publishable", "--origin", "shop.example"])).rejects.toThrow(UsageError);
    await expect(runKeys([...base, "--kind", "secret"])).rejects.toThrow("--kind must be live, test or publishable");
    await expect(runKeys([...base])).rejects.toThrow(UsageError);
    await expect(runKeys(["create", "--kind", "live", "--data-dir", dir])).rejects.toThrow("--email is required");
    const nobody = await cli(runKeys, ["create", "--email", "nobody@example.com", "--kind", "live", "--data-dir", dir]);
    expect(nobody.code).toBe(1);
    expect(nobody.err.join("\n")).toContain("no account for nobody@example.com");
    expect(rows(dir, "SELECT count(*) AS n FROM api_keys")).toEqual([{ n: 1 }]);
  });

  test("revoke by whole key, display prefix or masked form; ambiguous or unknown prefixes are refused; revoked keys are listed as such", async () => {
    const dir = dataDir();
    await cli(runAccounts, ["create", "--email", "ops@example.com", "--data-dir", dir]);
    const create = async (kind: string) => (await cli(runKeys, ["create", "--email", "ops@example.com", "--kind", kind, "--data-dir", dir])).out.at(-1)!;
    const a = await create("live");
    const b = await create("test");
    const c = await create("publishable");

    const whole = await cli(runKeys, ["revoke", a, "--data-dir", dir]);
    expect(whole.code).toBe(0);
    expect(whole.out).toEqual([`revoked live key ${a.slice(0, 12)}…${a.slice(-4)} (id 1)`]);
    expect((await cli(runKeys, ["revoke", b.slice(0, 12), "--data-dir", dir])).code).toBe(0);
    expect((await cli(runKeys, ["revoke", `${c.slice(0, 12)}...${c.slice(-4)}`, "--data-dir", dir])).code).toBe(0);
    expect(rows(dir, "SELECT id, revoked_at IS NOT NULL AS revoked FROM api_keys ORDER BY id")).toEqual([
      { id: 1, revoked: 1 },
      { id: 2, revoked: 1 },
      { id: 3, revoked: 1 },
    ]);
    const twice = await cli(runKeys, ["revoke", a, "--data-dir", dir]);
    expect(twice.code).toBe(1);
    expect(twice.err.join("\n")).toContain("no active key matches");
    for (const bad of ["sk_live_", "sk_live_AbC", "whatever"]) {
      const res = await cli(runKeys, ["revoke", bad, "--data-dir", dir]);
      expect(res.code, bad).toBe(1);
      expect(res.err.join("\n"), bad).toContain("not a key or key prefix");
    }
    await expect(runKeys(["revoke", "--data-dir", dir])).rejects.toThrow(UsageError);

    const list = await cli(runKeys, ["list", "--email", "ops@example.com", "--data-dir", dir]);
    expect(list.out.every((line) => line.split("\t")[4]!.startsWith("revoked "))).toBe(true);
  });

  test("a display prefix shared by two active keys is ambiguous: nothing is revoked", async () => {
    const dir = dataDir();
    await cli(runAccounts, ["create", "--email", "ops@example.com", "--data-dir", dir]);
    const key = (await cli(runKeys, ["create", "--email", "ops@example.com", "--kind", "live", "--data-dir", dir])).out.at(-1)!;
    // A second key whose first four random characters happen to match (1 in 62^4): forced here.
    const db = openDataDir(dir);
    db.accounts.run("INSERT INTO api_keys (account_id, kind, hash, prefix, last4, created_at) VALUES (1, 'live', ?, ?, 'zzzz', '2026-11-22T12:00:00+02:00')", [
      "0".repeat(64),
      key.slice(0, 12),
    ]);
    db.accounts.close();
    db.prices.close();
    const res = await cli(runKeys, ["revoke", key.slice(0, 12), "--data-dir", dir]);
    expect(res.code).toBe(1);
    expect(res.err.join("\n")).toContain("2 active keys match");
    expect(rows(dir, "SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NOT NULL")).toEqual([{ n: 0 }]);
    // The whole key still names exactly one.
    expect((await cli(runKeys, ["revoke", key, "--data-dir", dir])).code).toBe(0);
  });
});
