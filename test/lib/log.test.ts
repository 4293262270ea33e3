import { expect, test } from "bun:test";
import { join } from "node:path";

// The server's log lines are gathered as UTF-8 in one buffer and written in few writes (src/lib/log.ts):
// every line must still come out whole, in order, once — Hebrew, lines longer than the buffer, more
// lines than it holds — and the lines not yet written must be written when the process exits.
test("stdout log lines come out whole and in order, the last ones written at exit", async () => {
  const script = `
    import { log, setLogLevel } from ${JSON.stringify(join(import.meta.dir, "../../src/lib/log.ts"))};
    setLogLevel("info");
    for (let i = 0; i < 3000; i++) log.info("request", { i, name: i % 7 === 0 ? "חלב תנובה 3% \\u{1F95B}" : "x".repeat(i % 300) });
    log.info("long", { text: "א".repeat(100_000) });
    log.info("longer than the buffer", { text: "ב".repeat(200_000) });
    log.info("last", { i: 3001 });
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "info" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const lines = out.split("\n");
  expect(lines.pop()).toBe("");
  const parsed = lines.map((line) => JSON.parse(line) as { msg: string; i?: number; name?: string; text?: string });
  expect(parsed.length).toBe(3003);
  parsed.slice(0, 3000).forEach((line, i) => expect({ msg: line.msg, i: line.i, name: line.name }).toEqual({ msg: "request", i, name: i % 7 === 0 ? "חלב תנובה 3% \u{1F95B}" : "x".repeat(i % 300) }));
  expect(parsed[3000]!.text).toBe("א".repeat(100_000));
  expect(parsed[3001]!.text).toBe("ב".repeat(200_000));
  expect(parsed[3002]).toMatchObject({ msg: "last", i: 3001 });
}, 30_000);
