/**
 * Audit F9: with 4 KiB blocks overwritten in the middle of prices.sqlite a standalone server
 * started and /readyz answered 200 (then 500s, and perhaps silently wrong answers). `mehir serve`
 * now runs `PRAGMA quick_check` (in a worker) before it reads or serves anything, and refuses to
 * start on a damaged file: exit 1, a message naming the file and what to do, never ready.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { openSync, closeSync, writeSync, statSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { demoDataDir } from "../helpers/demo-data-dir.ts";
import { ServeProcess } from "../helpers/serve-process.ts";

setDefaultTimeout(300_000);

const NOW = new Date("2026-11-22T08:00:00Z");
let dataDir = "";
afterAll(() => {
  if (dataDir) rmSync(dirname(join(dataDir, "prices.sqlite")), { recursive: true, force: true });
});

test("a prices.sqlite with corrupt pages: mehir serve exits 1 naming the file and the backup to restore, never ready", async () => {
  dataDir = await demoDataDir(NOW);
  const path = join(dataDir, "prices.sqlite");
  // A checkpointed copy (no -wal): overwrite three 4 KiB blocks in the middle of the file.
  const size = statSync(path).size;
  const fd = openSync(path, "r+");
  for (const at of [0.45, 0.5, 0.55]) writeSync(fd, crypto.getRandomValues(new Uint8Array(4096)), 0, 4096, Math.floor((size * at) / 4096) * 4096);
  closeSync(fd);
  const check = new Database(path, { readonly: true });
  let verdict: unknown;
  try {
    verdict = check.query("PRAGMA quick_check").values();
  } catch (error) {
    verdict = (error as Error).message; // "database disk image is malformed"
  } finally {
    check.close();
  }
  expect(verdict).not.toEqual([["ok"]]);

  // Resolves at "listening" (then /readyz would be asked), rejects with the log if it exits first.
  const outcome = await ServeProcess.start({ dataDir, args: ["--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir, "--exports", "off"] }).then(
    async (server) => {
      const ready = await fetch(`${server.url}/readyz`).then((r) => r.status);
      await server.stop("SIGKILL");
      return `listening, /readyz ${ready}`;
    },
    (error: Error) => error.message,
  );
  expect(outcome).toStartWith("serve exited (1) before listening");
  expect(outcome).toContain(`${path} is damaged (PRAGMA quick_check:`);
  expect(outcome).toContain("mehir backup");
  expect(outcome).not.toContain("    at "); // one line, no stack
});
