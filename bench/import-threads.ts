/**
 * Where an import's wall and CPU go, per thread, for code trees run in alternation: each run is
 * `bench/lib/import-child.ts` of a tree (BENCH_TIMELINE=1) importing FILES into a fresh data dir,
 * its threads' /proc schedstat read every few ms. Per run: the import's seconds, the process's CPU,
 * the importing thread's CPU / run-queue wait / blocked (neither: waiting for a parsed file, a read
 * or an fsync), the parse worker's (its lifetime), the JIT compiler threads' CPU, the rest; when
 * the first and last files were loaded and the run committed. One JSON line per run, then medians.
 * Nothing is written to bench/RESULTS.md.
 *
 *   bun bench/import-threads.ts FILES [--trees A,B] [--pairs 3]
 *
 * e.g. FILES = .bench-data/import-real-220/files (made by `bench/import.ts --real 220`); a tree is
 * a checkout's root (default: this one) — run `flock -x /tmp/mehir-bench.lock …` around it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { numberOption } from "./lib/args.ts";
import { allocatorEnv, childEnv } from "./lib/allocator.ts";

const args = process.argv.slice(2);
const files = resolve(args[0] ?? ".bench-data/import-real-220/files");
const trees = (args.includes("--trees") ? args[args.indexOf("--trees") + 1]! : resolve(import.meta.dir, "..")).split(",").map((t) => resolve(t));
const pairs = numberOption(args, "pairs", 3);

interface Seen {
  comm: string;
  cpu: number;
  wait: number;
  first: number;
  last: number;
}

function sample(pid: number, threads: Map<number, Seen>): void {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  const now = performance.timeOrigin + performance.now();
  for (const name of tids) {
    const tid = Number(name);
    try {
      const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
      let seen = threads.get(tid);
      if (!seen) threads.set(tid, (seen = { comm: "", cpu: 0, wait: 0, first: now, last: now }));
      // A new thread is named by its creator a moment after it starts.
      if (seen.comm === "" || seen.comm === "bun.exe") seen.comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      seen.cpu = cpu! / 1e6;
      seen.wait = wait! / 1e6;
      seen.last = now;
    } catch {
      // the thread ended between the listing and the read
    }
  }
}

async function run(tree: string) {
  const data = mkdtempSync(join(tmpdir(), "import-threads-"));
  const env = childEnv(process.env, { ...allocatorEnv(), BENCH_TIMELINE: "1" });
  const child = Bun.spawn([process.execPath, join(tree, "bench/lib/import-child.ts"), "--data-dir", data, files], { stdout: "pipe", stderr: "inherit", env });
  const threads = new Map<number, Seen>();
  const poll = setInterval(() => sample(child.pid, threads), 4);
  const out = await new Response(child.stdout).text();
  await child.exited;
  clearInterval(poll);
  rmSync(data, { recursive: true, force: true });
  if (child.exitCode !== 0) throw new Error(`import child failed (${child.exitCode})`);
  const result = JSON.parse(out.trim().split("\n").pop()!);
  const all = [...threads.entries()];
  const workers = all.filter(([, t]) => t.comm === "Worker").sort((a, b) => b[1].cpu - a[1].cpu);
  const worker = workers[0]?.[1];
  const jit = all.filter(([, t]) => t.comm === "JITWorker").reduce((s, [, t]) => s + t.cpu, 0);
  const total = all.reduce((s, [, t]) => s + t.cpu, 0);
  const main = threads.get(child.pid);
  const m = result.marks;
  const at = (k: string) => Math.round(m[k] - m.start);
  const r = (v: number) => Math.round(v);
  return {
    tree: tree.split("/").pop(),
    s: +result.seconds.toFixed(3),
    cpu: r(result.cpuSeconds * 1000),
    importing: { cpu: r(result.importing.cpu), wait: r(result.importing.wait), blocked: r(result.importing.blocked) },
    worker: worker ? { cpu: r(worker.cpu), wait: r(worker.wait), blocked: r(worker.last - worker.first - worker.cpu - worker.wait), from: r(worker.first - m.start), to: r(worker.last - m.start) } : null,
    jit: r(jit),
    rest: r(total - (main?.cpu ?? 0) - (worker?.cpu ?? 0) - jit),
    marks: { first: at("firstLoaded"), last: at("lastLoaded"), committed: at("committed"), end: at("end") },
    timings: result.timings,
    rss: r(result.peakRss / 2 ** 20),
    load: +loadavg()[0]!.toFixed(2),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const results: Awaited<ReturnType<typeof run>>[] = [];
for (let p = 0; p < pairs; p++) {
  for (const tree of trees) {
    const one = await run(tree);
    results.push(one);
    console.log(JSON.stringify(one));
  }
}
for (const tree of trees) {
  const mine = results.filter((x) => x.tree === tree.split("/").pop());
  const pick = (f: (x: (typeof mine)[number]) => number) => median(mine.map(f));
  console.log(
    `${tree}: median s ${pick((x) => x.s)}, process CPU ${pick((x) => x.cpu)} ms, importing thread CPU ${pick((x) => x.importing.cpu)} / blocked ${pick((x) => x.importing.blocked)}, ` +
      `worker CPU ${pick((x) => x.worker?.cpu ?? NaN)} / blocked ${pick((x) => x.worker?.blocked ?? NaN)}, JIT ${pick((x) => x.jit)}, last file loaded ${pick((x) => x.marks.last)}, committed ${pick((x) => x.marks.committed)}, end ${pick((x) => x.marks.end)} ms`,
  );
}
