import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretBox, SECRET_KEY_FILE } from "../../src/alerts/secret-box.ts";
import { ACCOUNTS_FILE, openDataDir, PRICES_FILE } from "../../src/db/open.ts";
import { SANDBOX_FILE } from "../../src/sandbox/sandbox.ts";
import { MAIN, ServeProcess, withLogs } from "../helpers/serve-process.ts";
import { portalClient, portalDataDir } from "../helpers/portal/served-portal.ts";

// Starts servers and the CLI: sized for a loaded 2-core machine.
setDefaultTimeout(180_000);

/**
 * Files holding secrets are readable by their owner only and the data dir is 0700, whatever the
 * umask (audit F11): a real `mehir serve` and `mehir backup` started with umask 022, which left
 * them 0644 in a 0755 folder before.
 */
const root = mkdtempSync(join(tmpdir(), "mehir-file-modes-"));
let umask = 0;
const servers: ServeProcess[] = [];
const logs = () => servers.map((s) => s.logs()).join("\n");
const modeOf = (path: string) => statSync(path).mode & 0o777;

beforeAll(() => {
  // Children inherit it: the servers and CLI runs below start with umask 022.
  umask = process.umask(0o022);
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

/** Every regular file directly in `dir`, by name, with its mode. */
function fileModes(dir: string): Record<string, number> {
  const modes: Record<string, number> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) modes[entry.name] = modeOf(join(dir, entry.name));
  return modes;
}

test("a server started with umask 022 on a fresh data dir makes it 0700 and every database file in it 0600, -wal and -shm included", withLogs(logs, async () => {
  const dataDir = join(root, "fresh", "data");
  const server = await ServeProcess.start({ dataDir, env: { MEHIR_TRUST_PROXY: "on" }, name: "fresh" });
  servers.push(server);
  // A sign-up writes accounts.sqlite (its WAL) after the start.
  expect((await portalClient(server, "192.0.2.1").signUp("modes@example.com", "correct horse battery")).status).toBe(303);
  expect(modeOf(dataDir)).toBe(0o700);
  const modes = fileModes(dataDir);
  for (const db of [ACCOUNTS_FILE, PRICES_FILE, SANDBOX_FILE]) {
    for (const file of [db, `${db}-wal`, `${db}-shm`]) expect(modes[file], file).toBe(0o600);
  }
  for (const [file, mode] of Object.entries(modes)) expect(mode, file).toBe(0o600);
  // The demo's first-start import is still running: the stop ends it (nothing to wait for).
  expect(await server.stop()).toBe(0);
}));

test("files an earlier version left 0644 are made 0600 when the server opens them; the webhook key too", withLogs(logs, async () => {
  const dataDir = portalDataDir();
  const box = SecretBox.beside(join(dataDir, ACCOUNTS_FILE));
  box.seal("whsec_x", "alrt_1");
  for (const file of readdirSync(dataDir)) chmodSync(join(dataDir, file), 0o644);
  const server = await ServeProcess.start({ dataDir, name: "upgraded" });
  servers.push(server);
  const modes = fileModes(dataDir);
  expect(modes[SECRET_KEY_FILE]).toBe(0o644); // not read until an alert needs it
  for (const [file, mode] of Object.entries(modes)) if (file !== SECRET_KEY_FILE) expect(mode, file).toBe(0o600);
  expect(await server.stop()).toBe(0);
  // The key is made 0600 when it is read.
  expect(SecretBox.beside(join(dataDir, ACCOUNTS_FILE)).open(box.seal("whsec_y", "alrt_2"), "alrt_2")).toBe("whsec_y");
  expect(modeOf(join(dataDir, SECRET_KEY_FILE))).toBe(0o600);
  rmSync(dataDir, { recursive: true, force: true });
}));

test("mehir backup with umask 022: the copies 0600 in a 0700 folder", async () => {
  const dataDir = join(root, "backed-up");
  const db = openDataDir(dataDir);
  SecretBox.beside(db.accounts.filename).seal("whsec_x", "alrt_1");
  db.prices.close();
  db.accounts.close();
  const out = join(root, "backup", "copy");
  const run = Bun.spawn([process.execPath, MAIN, "backup", out, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  expect(modeOf(out)).toBe(0o700);
  expect(modeOf(join(root, "backup"))).toBe(0o700);
  expect(fileModes(out)).toEqual({ [ACCOUNTS_FILE]: 0o600, [PRICES_FILE]: 0o600, [SECRET_KEY_FILE]: 0o600 });
  expect(existsSync(join(out, `${ACCOUNTS_FILE}-wal`))).toBe(false);
});
