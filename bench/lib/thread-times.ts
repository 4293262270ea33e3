import { readdirSync, readFileSync } from "node:fs";

/** One thread's time so far, ms: on a CPU, and runnable but waiting for one (Linux schedstat). */
export interface ThreadTimes {
  cpu: number;
  wait: number;
}

/** A thread's times from /proc/<pid>/task/<tid>/schedstat; null where there is no such file (not Linux, ended). */
export function threadTimes(pid: number, tid: number): ThreadTimes | null {
  try {
    const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
    return { cpu: cpu! / 1e6, wait: wait! / 1e6 };
  } catch {
    return null;
  }
}

/** Ids of a process's threads named `name` (/proc/<pid>/task/<tid>/comm); none off Linux. */
export function threadsNamed(pid: number, name: string): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .filter((tid) => {
        try {
          return readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() === name;
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/** Sum of the times of `threads` ([pid, tid] pairs) — NaN when one cannot be read. */
export function sumTimes(threads: [number, number][]): ThreadTimes {
  let cpu = 0;
  let wait = 0;
  for (const [pid, tid] of threads) {
    const t = threadTimes(pid, tid);
    cpu += t?.cpu ?? NaN;
    wait += t?.wait ?? NaN;
  }
  return { cpu, wait };
}
