import { spyOn } from "bun:test";
import * as fs from "node:fs";
import { flushStdout, setLogFormat, setLogLevel, setLogStream } from "../../src/lib/log.ts";

/**
 * Captures what the service's log writes to stdout (fd 1) in-process, as JSON lines at info level:
 * `lines()` flushes the log's batch and gives the lines written so far; `restore()` puts stdout
 * back (the caller resets the level and format it changed, as its afterEach does).
 *
 * @example const out = captureStdout(); try { logRequest(line); expect(out.lines()).toHaveLength(1); } finally { out.restore(); }
 */
export function captureStdout(): { lines(): string[]; restore(): void } {
  const out: string[] = [];
  const spy = spyOn(fs, "writeSync").mockImplementation(((fd: number, bytes: Uint8Array, at: number, length: number) => {
    if (fd === 1) out.push(new TextDecoder().decode(bytes.subarray(at, at + length)));
    return length;
  }) as typeof fs.writeSync);
  setLogLevel("info");
  // The server's stream (a CLI command run in-process before, as another test does, moves it to stderr).
  setLogStream("stdout");
  setLogFormat("json");
  return {
    lines: () => {
      flushStdout();
      return out.join("").split("\n").filter(Boolean);
    },
    restore: () => spy.mockRestore(),
  };
}
