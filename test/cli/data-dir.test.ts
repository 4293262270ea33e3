/**
 * The CLI protects from typos: commands that need existing data refuse a folder with no mehir data
 * in one sentence and create nothing (`accounts create --create` starts one on purpose); file
 * errors are one sentence, never a raw `EEXIST: … mkdir` or `SQLITE_CANTOPEN`.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileErrorSentence } from "../../src/cli/file-error.ts";
import { requireMehirData } from "../../src/cli/data-dir.ts";

// Starts processes: sized for a loaded 2-core machine.
setDefaultTimeout(120_000);

const MAIN = join(import.meta.dir, "../../src/main.ts");
const root = mkdtempSync(join(tmpdir(), "mehir-cli-data-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function mehir(args: string[]) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "silent" } });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString().trim() };
}

describe("a data dir with no mehir data", () => {
  const typo = join(root, "mehir-dta");
  const refusal = (name: string, create = false) =>
    `mehir ${name}: no mehir data in ${typo} — start \`mehir serve --data-dir ${typo}\` first${create ? ", or pass `--create`" : ""}`;

  for (const [name, args, create] of [
    ["accounts", ["accounts", "create", "--email", "typo@example.com"], true],
    ["accounts", ["accounts", "list"], false],
    ["accounts", ["accounts", "set-plan", "typo@example.com", "pro"], false],
    ["keys", ["keys", "create", "--email", "typo@example.com", "--kind", "live"], false],
    ["keys", ["keys", "list", "--email", "typo@example.com"], false],
    ["backup", ["backup", join(root, "backup-out")], false],
    ["export", ["export", join(root, "export-out")], false],
    ["status", ["status"], false],
  ] as const) {
    test(`mehir ${args.slice(0, 2).join(" ")} refuses it in one sentence, exit 1, and creates nothing`, () => {
      const r = mehir([...args, "--data-dir", typo]);
      expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(name, create) });
      expect(existsSync(typo)).toBe(false);
      expect(existsSync(join(root, "backup-out"))).toBe(false);
      expect(existsSync(join(root, "export-out"))).toBe(false);
    });
  }

  test("accounts create --create starts one on purpose; then the others find it", () => {
    const fresh = join(root, "fresh");
    expect(mehir(["accounts", "create", "--email", "ops@example.com", "--create", "--data-dir", fresh]).code).toBe(0);
    const list = mehir(["accounts", "list", "--data-dir", fresh]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("ops@example.com");
    expect(mehir(["keys", "list", "--email", "ops@example.com", "--data-dir", fresh]).code).toBe(0);
  });

  test("in-process: the check passes a data dir with either database, refuses others, allows --create", () => {
    const accountsOnly = join(root, "accounts-only");
    mkdirSync(accountsOnly);
    writeFileSync(join(accountsOnly, "accounts.sqlite"), "");
    expect(() => requireMehirData(accountsOnly)).not.toThrow();
    expect(() => requireMehirData(accountsOnly, { file: "prices.sqlite" })).toThrow(`no mehir data in ${accountsOnly}`);
    expect(() => requireMehirData(join(root, "none"), { create: true })).not.toThrow();
  });
});

describe("file errors in one sentence", () => {
  test("a data dir that is a file: `… is a file, not a folder`, not EEXIST", () => {
    const file = join(root, "a-file");
    writeFileSync(file, "x");
    const r = mehir(["accounts", "create", "--email", "a@example.com", "--create", "--data-dir", file]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `mehir accounts: ${file} is a file, not a folder` });
  });

  test("a database that cannot be opened: one sentence, not SQLITE_CANTOPEN", () => {
    const broken = join(root, "broken");
    mkdirSync(join(broken, "prices.sqlite"), { recursive: true }); // a folder where the database should be
    const r = mehir(["accounts", "list", "--data-dir", broken]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("mehir accounts: cannot open a database of the data dir: check that it is a folder you may write to");
    expect(r.stderr).not.toContain("SQLITE_");
  });

  test("fileErrorSentence: each code as a sentence naming the path; other errors are left alone", () => {
    const error = (code: string, syscall?: string, path?: string) => Object.assign(new Error(`${code}: raw`), { code, syscall, path });
    expect(fileErrorSentence(error("EEXIST", "mkdir", "/etc/passwd"))).toBe("/etc/passwd is a file, not a folder");
    expect(fileErrorSentence(error("EACCES", "mkdir", "/root/x"))).toBe("no permission to write /root/x");
    expect(fileErrorSentence(error("EACCES", "open", "/root/x"))).toBe("no permission to read /root/x");
    expect(fileErrorSentence(error("ENOSPC", "write", "/d/prices.sqlite"))).toBe("the disk is full (writing /d/prices.sqlite)");
    expect(fileErrorSentence(error("SQLITE_CANTOPEN"))).toStartWith("cannot open a database of the data dir");
    expect(fileErrorSentence(error("ECONNREFUSED", "connect"))).toBeNull();
    expect(fileErrorSentence(new Error("plain"))).toBeNull();
  });
});
