import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { dayOneImported, tempRoot } from "../../helpers/faults/faults.ts";
import { ServeProcess, withLogs } from "../../helpers/serve-process.ts";

// Starts a server process: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * The request log is written in batches (src/lib/log.ts: up to 50 ms or 256 KB): a graceful stop
 * right after a burst of answers must still write every one of their lines.
 */
const root = tempRoot("log-on-stop");
let server: ServeProcess | undefined;
afterAll(async () => {
  if (server?.proc.exitCode === null) await server.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test(
  "SIGTERM right after 400 answers: the log has all 400 request lines, then the process exits 0",
  withLogs(
    () => server?.logs() ?? "",
    async () => {
      const { dataDir, db } = await dayOneImported(root, { stores: 2, itemsPerStore: 50, products: 100, chains: 1, promos: false });
      db.prices.close();
      db.accounts.close();
      server = await ServeProcess.start({ dataDir, env: { MEHIR_RATE_ANONYMOUS: "100000" } });
      await server.ready();
      const ids = new Set<string>();
      for (let round = 0; round < 8; round++) {
        // 50 at a time, without a key: each answered 401 and logged.
        const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${server!.url}/api/v1/chains/`)));
        for (const res of answers) {
          expect(res.status).toBe(401);
          ids.add(res.headers.get("x-request-id")!);
          await res.body?.cancel();
        }
      }
      expect(ids.size).toBe(400);
      expect(await server.stop("SIGTERM")).toBe(0);
      // The exit can be seen before the last of its output is read.
      await server.drained();
      const logged = new Set(
        server.lines
          .filter((line) => line.startsWith("{") && line.includes('"msg":"request"'))
          .map((line) => (JSON.parse(line) as { request_id: string }).request_id)
          .filter((id) => ids.has(id)),
      );
      expect(logged.size).toBe(400);
    },
  ),
);
