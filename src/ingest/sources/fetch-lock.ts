import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";

/** Another fetch (this process or another: `serve`'s daily run, `mehir fetch`) holds the data dir. */
export class FetchBusyError extends Error {
  override name = "FetchBusyError";
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes `<dataDir>/downloads/.fetch.lock` (holding this process id) for one fetch run, so two
 * runs never write the same download at once; a lock left by a process that is gone is taken
 * over. Returns the release function; throws FetchBusyError while another run holds it.
 *
 * @example const release = acquireFetchLock("./mehir-data"); try { … } finally { release(); }
 */
export function acquireFetchLock(dataDir: string): () => void {
  const dir = join(dataDir, "downloads");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, ".fetch.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(path, "utf8").trim() || NaN);
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) throw new FetchBusyError(`another fetch is running on ${dataDir} (process ${holder})`);
      rmSync(path, { force: true }); // left behind by a run that died
    }
  }
  throw new FetchBusyError(`could not take the fetch lock ${path}`);
}
