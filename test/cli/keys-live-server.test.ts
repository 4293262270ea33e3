/**
 * The operator CLI against a running `mehir serve`, each in its own process on the same data dir:
 * keys created, plans changed and keys revoked take effect without a restart (how soon — at most
 * the cache's 250 ms poll — is test/access/key-cache.test.ts's, on a clock of its own: here a
 * loaded machine's wall clock would decide); the quota count survives a graceful stop exactly and
 * a SIGKILL up to the last unflushed batch.
 */
import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { openDataDir } from "../../src/db/open.ts";
import { loadRegistry } from "../../src/registry.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { bumpDataVersion } from "../../src/data/data-state.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const MAIN = join(import.meta.dir, "../../src/main.ts");
const dataDir = mkdtempSync(join(tmpdir(), "mehir-cli-live-"));
// Debug: the test waits on the server's "usage flushed" line.
const ENV = { ...process.env, NODE_ENV: "production", MEHIR_LOG_LEVEL: "debug", MEHIR_RATE_FREE: "6000", MEHIR_RATE_BASIC: "6000" };
let server: Subprocess<"ignore", "pipe", "pipe"> | null = null;

afterAll(() => {
  server?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Data as an import would leave it, so serve does not generate the demo (nothing here needs prices). */
function seed(): void {
  const db = openDataDir(dataDir);
  syncRegistry(db.prices, loadRegistry());
  bumpDataVersion(db.prices, "2026-11-22T05:30:00+02:00", "demo");
  db.prices.close();
  db.accounts.close();
}

/** `mehir …` in a process of its own; its stdout lines. */
function mehir(...args: string[]): string[] {
  const run = Bun.spawnSync([process.execPath, MAIN, ...args, "--data-dir", dataDir], { env: ENV });
  if (run.exitCode !== 0) throw new Error(`mehir ${args.join(" ")}: exit ${run.exitCode}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim().split("\n");
}

/** The running server's log lines, read as they come; `logged` waits for the next line matching. */
let lines: { next: (pattern: RegExp) => Promise<string> } | null = null;

/** Starts `mehir serve` on a free loopback port; resolves with its URL once it listens. */
async function serve(): Promise<string> {
  server = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe", env: ENV });
  lines = logLines(server.stdout);
  const listening = await lines.next(/"msg":"listening"/);
  return /"url":"([^"]+)"/.exec(listening)![1]!;
}

/** Reads a process's stdout as it comes (so the pipe never fills); `next(pattern)` resolves with the next line matching, dropping those before it. */
function logLines(stdout: ReadableStream<Uint8Array>): { next: (pattern: RegExp) => Promise<string> } {
  const waiting: string[] = [];
  const state = { ended: false, wake: null as (() => void) | null };
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of stdout as unknown as AsyncIterable<Uint8Array>) {
      const parts = (buffered + decoder.decode(chunk, { stream: true })).split("\n");
      buffered = parts.pop()!;
      waiting.push(...parts);
      state.wake?.();
    }
    state.ended = true;
    state.wake?.();
  })();
  return {
    async next(pattern) {
      for (;;) {
        const line = waiting.shift();
        if (line !== undefined) {
          if (pattern.test(line)) return line;
          continue;
        }
        if (state.ended) throw new Error(`serve's output ended before a line matching ${pattern}`);
        await new Promise<void>((resolve) => (state.wake = resolve));
        state.wake = null;
      }
    },
  };
}

async function api(url: string, path: string, key: string): Promise<{ status: number; code?: string; remaining?: number }> {
  const res = await fetch(url + path, { headers: { "x-api-key": key } });
  const body = (await res.json()) as { code?: string; meta?: { quota_remaining?: number } };
  return { status: res.status, code: body.code, remaining: body.meta?.quota_remaining };
}

/** Calls until `check` holds, each call once the previous one is answered (the test's timeout bounds it). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check()));
}

test("keys and plans changed by the CLI reach a running serve without a restart; quota counts survive SIGTERM exactly and SIGKILL up to the last flushed batch", async () => {
  seed();
  let url = await serve();
  mehir("accounts", "create", "--email", "ops@example.com");

  // A key created while serve runs works at once (a cache miss is looked up in the database).
  const key = mehir("keys", "create", "--email", "ops@example.com", "--kind", "live").at(-1)!;
  expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
  expect(await api(url, "/api/v1/chains/", key)).toMatchObject({ status: 200, remaining: 199 });
  for (let i = 0; i < 4; i++) await api(url, "/api/v1/chains/", key);
  expect(await api(url, "/api/v1/chains/shufersal/catalog/", key)).toMatchObject({ status: 403, code: "plan_upgrade_required" });

  // A plan change: refused calls while it propagates are not counted.
  mehir("accounts", "set-plan", "ops@example.com", "basic");
  await until(async () => (await api(url, "/api/v1/chains/shufersal/catalog/", key)).status === 200);
  // 5 chains calls + 1 catalog call counted, now against Basic's 10,000.
  expect(await api(url, "/api/v1/chains/", key)).toMatchObject({ status: 200, remaining: 10_000 - 7 });

  // Graceful stop: everything counted is written.
  server!.kill("SIGTERM");
  expect(await server!.exited).toBe(0);
  url = await serve();
  expect(await api(url, "/api/v1/chains/", key)).toMatchObject({ status: 200, remaining: 10_000 - 8 });

  // SIGKILL: counts already flushed (batches at most a second apart) survive; at most the last
  // batch's calls are lost. Here: wait for the flush of the call above, make 3 calls, kill at once.
  await lines!.next(/"msg":"usage flushed"/);
  for (let i = 0; i < 3; i++) await api(url, "/api/v1/chains/", key);
  server!.kill("SIGKILL");
  await server!.exited;
  url = await serve();
  const afterKill = (await api(url, "/api/v1/chains/", key)).remaining!;
  expect(afterKill).toBeLessThanOrEqual(10_000 - 9); // the 8 flushed calls and this one
  expect(afterKill).toBeGreaterThanOrEqual(10_000 - 12); // nothing counted twice

  // A key revoked while serve runs is refused.
  mehir("keys", "revoke", key.slice(0, 12));
  await until(async () => (await api(url, "/api/v1/chains/", key)).status === 401);
  expect(await api(url, "/api/v1/chains/", key)).toMatchObject({ status: 401, code: "invalid_api_key" });

  server!.kill("SIGTERM");
  expect(await server!.exited).toBe(0);
  server = null;
}, 90_000);
