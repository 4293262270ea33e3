import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/** Failures of the environment end `mehir serve` with one line on stderr and status 1, not a stack dump. */
const MAIN = join(import.meta.dir, "../../src/main.ts");
const dir = mkdtempSync(join(tmpdir(), "mehir-operational-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const r = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "error" } });
  return { code: r.exitCode, stderr: r.stderr.toString().trim() };
}

test("a data dir that is a file: one line naming it, status 1", () => {
  const file = join(dir, "not-a-dir");
  writeFileSync(file, "x");
  const r = run(["serve", "--port", "0", "--data-dir", file]);
  expect(r.code).toBe(1);
  expect(r.stderr.split("\n")).toHaveLength(1);
  expect(r.stderr).toStartWith("mehir serve: ");
  expect(r.stderr).toContain(file);
});

test("a port in use: one line naming the settings, status 1", async () => {
  const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  try {
    const r = run(["serve", "--host", "127.0.0.1", "--port", String(other.port), "--data-dir", join(dir, "data")]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^mehir serve: port ${other.port} is in use on 127\\.0\\.0\\.1.*MEHIR_PORT`));
  } finally {
    other.stop(true);
  }
});
