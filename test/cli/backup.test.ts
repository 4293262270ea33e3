import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupDataDir } from "../../src/cli/backup.ts";
import { openDataDir } from "../../src/db/open.ts";

test("backup copies both databases consistently while a connection stays open", () => {
  const dir = mkdtempSync(join(tmpdir(), "mehir-backup-"));
  try {
    const db = openDataDir(join(dir, "data"));
    db.accounts.run("INSERT INTO accounts (email, plan, created_at) VALUES ('a@example.com', 'pro', '2026-11-22')");
    db.prices.run("INSERT INTO meta (key, value) VALUES ('data_version', '7')");
    const files = backupDataDir(join(dir, "data"), join(dir, "out"));
    expect(files).toHaveLength(2);
    const accounts = new Database(join(dir, "out", "accounts.sqlite"), { readonly: true });
    expect(accounts.query("SELECT plan FROM accounts").get()).toEqual({ plan: "pro" });
    const prices = new Database(join(dir, "out", "prices.sqlite"), { readonly: true });
    expect(prices.query("SELECT value FROM meta WHERE key = 'data_version'").get()).toEqual({ value: "7" });
    expect(() => backupDataDir(join(dir, "data"), join(dir, "out"))).toThrow(/already holds a backup/);
    accounts.close();
    prices.close();
    db.prices.close();
    db.accounts.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("backup copies the price alerts' secret key (0600) so restored alerts can still sign", async () => {
  const { SecretBox, SECRET_KEY_FILE } = await import("../../src/alerts/secret-box.ts");
  const { readFileSync, statSync } = await import("node:fs");
  const dir = mkdtempSync(join(tmpdir(), "mehir-backup-"));
  try {
    const db = openDataDir(join(dir, "data"));
    const sealed = SecretBox.beside(db.accounts.filename).seal("whsec_x", "alrt_1");
    db.prices.close();
    db.accounts.close();
    const files = backupDataDir(join(dir, "data"), join(dir, "out"));
    expect(files).toHaveLength(3);
    expect(readFileSync(join(dir, "out", SECRET_KEY_FILE), "utf8")).toBe(readFileSync(join(dir, "data", SECRET_KEY_FILE), "utf8"));
    expect(statSync(join(dir, "out", SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(SecretBox.beside(join(dir, "out", "accounts.sqlite")).open(sealed, "alrt_1")).toBe("whsec_x");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
