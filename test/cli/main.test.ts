import { expect, test, setDefaultTimeout } from "bun:test";
import { join } from "node:path";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const MAIN = join(import.meta.dir, "../../src/main.ts");

function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

test("a bad setting exits non-zero with one line naming it", () => {
  const r = run(["serve", "--port", "not-a-port"]);
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain("--port / MEHIR_PORT");
  const env = run(["serve"], { MEHIR_SOURCE: "nonsense" });
  expect(env.code).toBe(2);
  expect(env.stderr).toContain("MEHIR_SOURCE");
});

test("every command has --help", () => {
  for (const command of ["serve", "import", "fetch", "status", "demo", "accounts", "keys", "backup", "restore", "export", "compact"]) {
    const r = run([command, "--help"]);
    expect(r.code, command).toBe(0);
    expect(r.stdout, command).toContain("mehir");
  }
});

test("unknown commands and flags are usage errors", () => {
  expect(run(["frobnicate"]).code).toBe(2);
  const r = run(["serve", "--no-such-flag"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("no-such-flag");
});
