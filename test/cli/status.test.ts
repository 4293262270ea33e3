import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDataDir } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { loadRegistry } from "../../src/registry.ts";
import { toIsraelIso } from "../../src/lib/time.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const dir = mkdtempSync(join(tmpdir(), "mehir-status-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const r = Bun.spawnSync([process.execPath, MAIN, "status", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "error" } });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString().trim() };
}

// A data dir as the collection loop leaves it: times relative to now (the command reads the real clock).
const hoursAgo = (h: number) => toIsraelIso(new Date(Date.now() - h * 3600_000));
const pharmSuccess = hoursAgo(80);
const dataDir = join(dir, "data");
const db = openDataDir(dataDir);
syncRegistry(db.prices, loadRegistry());
db.prices.run(
  `INSERT INTO chain_health (chain_slug, last_attempt_at, last_success_at, last_data_at, last_error, fetch_status, status_reason, newest_file_at, next_run_at) VALUES
     ('shufersal', ?, ?, ?, NULL, 'ok', NULL, ?, ?),
     ('super-pharm', ?, ?, ?, 'HTTP 247: a firewall challenge (Reblaze) instead of the page', 'blocked', 'the portal refused this address: HTTP 247: a firewall challenge (Reblaze) instead of the page', ?, ?),
     ('victory', ?, ?, ?, NULL, 'ok', NULL, ?, ?)`,
  [hoursAgo(1), hoursAgo(1), hoursAgo(5), hoursAgo(5), hoursAgo(-0.5), hoursAgo(1), pharmSuccess, hoursAgo(80), hoursAgo(80), hoursAgo(-2), hoursAgo(1), hoursAgo(1), hoursAgo(40), hoursAgo(40), hoursAgo(-0.5)],
);
db.prices.close();
db.accounts.close();

test("mehir status prints a line per chain: status, newest file and its age, attempts, next run, the problem", () => {
  const r = run(["--data-dir", dataDir]);
  expect([r.code, r.stderr]).toEqual([0, ""]);
  const lines = r.stdout.split("\n");
  expect(lines[0]).toMatch(/^CHAIN +STATUS +NEWEST FILE +LAST ATTEMPT +LAST SUCCESS +NEXT RUN +PROBLEM$/);
  const line = (slug: string) => lines.find((l) => l.startsWith(`${slug} `))!;
  expect(line("shufersal")).toMatch(/^shufersal +ok +\d{4}-\d\d-\d\d \d\d:\d\d \(5h ago\) +\d{4}-\d\d-\d\d \d\d:\d\d/);
  expect(line("super-pharm")).toMatch(/ blocked +.*\(3d ago\).*the portal refused this address: HTTP 247/);
  expect(line("victory")).toMatch(/ stale .*newest data from .*, older than 36 hours/);
  // An active chain never fetched is listed too.
  expect(line("rami-levy")).toMatch(/^rami-levy +no_data +- +- +- +- +nothing imported for the chain yet$/);
  expect(r.stdout).toMatch(/chains: 1 ok, 1 stale, 1 blocked, \d+ no data \(at \d{4}-\d\d-\d\d \d\d:\d\d, Israel time\)/);
  // The database's size and the space pruning freed in it (issue 45 part 2).
  expect(r.stdout).toMatch(/\nprices\.sqlite: \d+\.\d MB, of which \d+\.\d MB free \(\d+ pages; (given back to the disk after each import|reused by new data; `mehir compact` gives it back)\)\n$/);
});

test("mehir status --json gives the same per chain", () => {
  const r = run(["--json", "--data-dir", dataDir]);
  expect(r.code).toBe(0);
  const body = JSON.parse(r.stdout) as { data_dir: string; database: Record<string, unknown>; chains: Record<string, unknown>[] };
  expect(body.data_dir).toBe(dataDir);
  expect(body.database).toMatchObject({ file: "prices.sqlite", bytes: expect.any(Number), free_bytes: expect.any(Number), free_pages: expect.any(Number) });
  expect(["none", "full", "incremental"]).toContain(body.database.auto_vacuum as string);
  const pharm = body.chains.find((c) => c.chain === "super-pharm")!;
  expect(pharm).toMatchObject({ status: "blocked", status_reason: expect.stringContaining("HTTP 247"), last_success_at: pharmSuccess });
  expect(Object.keys(pharm).sort()).toEqual(["chain", "last_attempt_at", "last_data_at", "last_error", "last_success_at", "name_en", "newest_file_at", "next_run_at", "stale_warned_at", "status", "status_reason"]);
  expect(body.chains.find((c) => c.chain === "shufersal")).toMatchObject({ status: "ok", status_reason: null });
});

test("a folder with no mehir data is refused in one sentence, and not created", () => {
  const empty = join(dir, "nothing-here");
  const r = run(["--data-dir", empty]);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(`mehir status: no mehir data in ${empty} — start \`mehir serve --data-dir ${empty}\` first`);
  expect(existsSync(empty)).toBe(false);
  expect(run(["--help"]).stdout).toContain("Usage: mehir status [--json] [--data-dir DIR]");
});
