/**
 * What a person sees in the console of `mehir serve` (issue 43 part 2): a "ready" line once the
 * API answers with data (JSON for programs, a short sentence on a terminal or with
 * MEHIR_LOG_FORMAT=pretty), `PORT` honoured, and the server's own warm-up requests not logged.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { demoDataDir } from "../helpers/demo-data-dir.ts";
import { ServeProcess, withLogs } from "../helpers/serve-process.ts";

// Starts processes: sized for a loaded 2-core machine.
setDefaultTimeout(180_000);

const dirs: string[] = [];
const servers: ServeProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const logs = () => servers.map((s) => s.logs()).join("\n");

test(
  "JSON logs: listening, then ready with the links once /readyz is green; no request line the server made itself",
  withLogs(logs, async () => {
    const dataDir = await demoDataDir(new Date("2026-11-22T08:00:00Z"));
    dirs.push(dataDir);
    const server = await ServeProcess.start({ dataDir, env: { MEHIR_PORT: "0" }, name: "json" });
    servers.push(server);
    const ready = JSON.parse(await server.nextLine((line) => line.includes('"msg":"ready"')));
    expect(ready).toMatchObject({ level: "info", url: server.url, docs: `${server.url}/docs`, portal: `${server.url}/portal/` });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    // The warm-up's own /healthz and /readyz before listening are neither logged nor counted:
    // the first request line is this test's (lines are written in batches: wait for it).
    await server.nextLine((line) => line.includes('"msg":"request"'));
    const requests = server.lines.filter((line) => line.includes('"msg":"request"'));
    expect(requests.map((line) => JSON.parse(line).route)).toEqual(["/readyz"]);
  }),
);

test(
  "pretty logs (MEHIR_LOG_FORMAT=pretty) and the port from PORT",
  withLogs(logs, async () => {
    const dataDir = await demoDataDir(new Date("2026-11-22T08:00:00Z"));
    dirs.push(dataDir);
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    // The helper reads the JSON "listening" line to learn the URL: pretty lines go to a second process.
    const proc = Bun.spawn([process.execPath, (await import("../helpers/serve-process.ts")).MAIN, "serve", "--data-dir", dataDir, "--host", "127.0.0.1"], {
      env: { ...process.env, MEHIR_PORT: undefined, PORT: String(port), MEHIR_LOG_FORMAT: "pretty", MEHIR_LOG_LEVEL: "info", MEHIR_METRICS_ADDR: "127.0.0.1:0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const seen: string[] = [];
    const decoder = new TextDecoder();
    try {
      const reader = proc.stdout.getReader();
      while (!seen.some((l) => l.includes(" ready — "))) {
        const { value, done } = await reader.read();
        if (done) break;
        seen.push(...decoder.decode(value).split("\n").filter(Boolean));
      }
      reader.releaseLock();
      const text = seen.join("\n");
      expect(text).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d mehir is listening on http://127\\.0\\.0\\.1:${port} \\(data: `, "m"));
      expect(text).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ready — http://127\\.0\\.0\\.1:${port} · docs http://127\\.0\\.0\\.1:${port}/docs · portal http://127\\.0\\.0\\.1:${port}/portal/$`, "m"));
      expect(text).not.toContain('{"time"');
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }),
);
