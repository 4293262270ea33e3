import { describe, expect, test } from "bun:test";
import { sumTimes, threadsNamed, threadTimes } from "../../bench/lib/thread-times.ts";

// bench/demo.ts reads these around each probe to say where a slow answer's time went. They read
// /proc/<pid>/task/<tid>/{schedstat,comm}, which only Linux has: elsewhere there is nothing to read
// (the functions then answer null / [] / NaN, tested below on every platform).
const linux = process.platform === "linux";

describe("thread times (bench/lib/thread-times.ts)", () => {
  test.skipIf(!linux)("Linux: this thread's CPU time grows while it works; its wait for a core is never negative", () => {
    const before = threadTimes(process.pid, process.pid)!;
    const until = performance.now() + 30;
    while (performance.now() < until) {
      // busy for 30 ms of wall time: at least some of it on a CPU
    }
    const after = threadTimes(process.pid, process.pid)!;
    expect(after.cpu).toBeGreaterThan(before.cpu);
    expect(after.wait).toBeGreaterThanOrEqual(before.wait);
  });

  test.skipIf(!linux)("Linux: Bun's HTTP client thread is found by its name once a fetch has started it", async () => {
    using server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    await (await fetch(server.url)).text();
    const [http] = threadsNamed(process.pid, "HTTP Client");
    expect(http).toBeGreaterThan(0);
    expect(threadTimes(process.pid, http!)!.cpu).toBeGreaterThan(0);
    expect(threadsNamed(process.pid, "no such thread")).toEqual([]);
  });

  test("a thread that cannot be read makes the sum NaN, not a smaller figure", () => {
    expect(threadTimes(process.pid, 2 ** 22 + 1)).toBeNull();
    const sum = sumTimes([[process.pid, 2 ** 22 + 1]]);
    expect(sum.cpu).toBeNaN();
    expect(sum.wait).toBeNaN();
  });
});
