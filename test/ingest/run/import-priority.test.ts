import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";

/** Scheduling policy and niceness of each thread of this process (Linux /proc). */
function threads(): { tid: string; policy: number; nice: number }[] {
  return readdirSync(`/proc/${process.pid}/task`).flatMap((tid) => {
    try {
      const sched = readFileSync(`/proc/${process.pid}/task/${tid}/sched`, "utf8");
      const policy = Number(/^policy\s*:\s*(\d+)/m.exec(sched)?.[1] ?? -1);
      const nice = Number(readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
      return [{ tid, policy, nice }];
    } catch {
      return []; // the thread ended meanwhile (a worker of an earlier test)
    }
  });
}

// Thread policies and niceness are read from /proc and set with Linux calls: elsewhere there is nothing to look at.
const linux = process.platform === "linux";

describe("runAtImportPriority", () => {
  test.skipIf(!linux)("Linux: idle: the import's thread (and threads it starts) run SCHED_IDLE; the serving thread is untouched", async () => {
    const url = new URL("../../../src/ingest/run/import-priority.ts", import.meta.url).href;
    const worker = new Worker(
      URL.createObjectURL(
        new Blob([
          `import { runAtImportPriority } from ${JSON.stringify(url)};
           runAtImportPriority("idle");
           const inner = new Worker(URL.createObjectURL(new Blob(["setInterval(() => {}, 1000); setTimeout(() => postMessage(0), 30)"])));
           inner.onmessage = () => postMessage("ready");`,
        ]),
      ),
    );
    await new Promise((resolve) => (worker.onmessage = resolve));
    const all = threads();
    const main = all.find((t) => t.tid === String(process.pid))!;
    expect(main.policy).toBe(0);
    // The worker and the one it started: SCHED_IDLE (5).
    expect(all.filter((t) => t.policy === 5).length).toBeGreaterThanOrEqual(2);
    worker.terminate();
  });

  test.skipIf(!linux)("Linux: low: 10 steps nicer than the thread it starts on (niceness 10 from 0; the test may itself run under nice)", async () => {
    const base = threads().find((t) => t.tid === String(process.pid))!.nice;
    const low = Math.min(19, base + 10);
    const url = new URL("../../../src/ingest/run/import-priority.ts", import.meta.url).href;
    const worker = new Worker(URL.createObjectURL(new Blob([`import { runAtImportPriority } from ${JSON.stringify(url)}; runAtImportPriority("low"); setInterval(() => {}, 1000); postMessage("ready");`])));
    await new Promise((resolve) => (worker.onmessage = resolve));
    expect(threads().some((t) => t.nice === low && t.policy === 0)).toBe(true);
    expect(threads().find((t) => t.tid === String(process.pid))!.nice).toBe(base);
    worker.terminate();
  });
});
