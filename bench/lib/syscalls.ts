/**
 * System calls per request of a server under wrk: `strace -c -f` (Debian package) attached to the
 * server's process for one wrk run, its counts divided by the requests wrk completed. strace slows
 * every call down, so this run is apart from the measured rows and only its counts are read.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LOG_DIR } from "./processes.ts";
import { runWrk, type WrkPlan } from "./wrk.ts";

export interface SyscallCounts {
  requests: number;
  /** Calls per request by system call, most frequent first. */
  perRequest: [name: string, calls: number][];
}

/** The strace binary, or why there is none (the rows are then skipped with the reason). */
export function findStrace(): { path: string } | { skip: string } {
  const found = Bun.which("strace");
  return found ? { path: found } : { skip: "strace is not installed (Debian: apt-get install strace)" };
}

/** Counts the server's system calls (all its threads) during one wrk run of `plan`. */
export async function syscallsPerRequest(strace: string, wrk: string, plan: WrkPlan, serverPid: number): Promise<SyscallCounts> {
  mkdirSync(LOG_DIR, { recursive: true });
  const out = join(LOG_DIR, `strace-${process.pid}.txt`);
  rmSync(out, { force: true });
  const proc = Bun.spawn([strace, "-c", "-f", "-p", String(serverPid), "-o", out], { stdout: "ignore", stderr: "pipe" });
  // strace says "Process N attached" on stderr once it follows the process: only then does wrk start.
  const reader = proc.stderr.getReader();
  let said = "";
  while (!said.includes("attached")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`strace ended before attaching: ${said.trim()}`);
    said += new TextDecoder().decode(value);
  }
  const draining = (async () => {
    while (!(await reader.read()).done);
  })();
  const { report } = await runWrk(wrk, plan, serverPid);
  proc.kill("SIGINT");
  await Promise.all([proc.exited, draining]);
  const calls = parseSummary(readFileSync(out, "utf8"));
  rmSync(out, { force: true });
  const requests = Math.max(1, report.requests);
  return { requests: report.requests, perRequest: [...calls].map(([name, n]): [string, number] => [name, n / requests]).sort((a, b) => b[1] - a[1]) };
}

/**
 * strace -c's table: `% time  seconds  usecs/call  calls  errors  syscall`, the errors column
 * empty for calls that never failed.
 */
function parseSummary(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5 || !/^\d/.test(fields[0]!)) continue;
    const name = fields.at(-1)!;
    if (name === "total") continue;
    calls.set(name, Number(fields[3]));
  }
  return calls;
}
