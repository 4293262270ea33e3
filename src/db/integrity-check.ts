import { basename } from "node:path";
import { workerSpecifier } from "../workers.ts";

/** A database file whose pages are damaged: the server refuses to start on it. */
export class DatabaseDamagedError extends Error {
  override name = "DatabaseDamagedError";
  /** So `mehir serve` prints it as one line and exits 1 (main.ts's operational errors). */
  readonly code = "SQLITE_CORRUPT";

  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    super(
      `${path} is damaged (PRAGMA quick_check: ${problems.slice(0, 3).join("; ")}); the server will not serve it. ` +
        `Stop mehir, copy ${basename(path)} from the newest backup made by \`mehir backup\` into the data dir (docs/operations.md "Backups") ` +
        `and start again${basename(path) === "prices.sqlite" ? "; or move the file away to start with no price data (the next import or fetch fills it)" : ""}.`,
    );
  }
}

/**
 * `PRAGMA quick_check` of a database file in a worker thread, so a multi-GB file's pages are read
 * without blocking the calling thread (about a second per GB). Resolves when the file is sound;
 * rejects with DatabaseDamagedError naming the file, what the check found and what to do.
 *
 * @example await checkDatabaseOffThread(join(dataDir, PRICES_FILE))
 */
export function checkDatabaseOffThread(path: string): Promise<void> {
  const worker = new Worker(workerSpecifier("db/integrity-check-worker.ts"));
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<{ kind: "done"; problems: string[] }>) => {
      const { problems } = event.data;
      if (problems.length === 0) resolve();
      else reject(new DatabaseDamagedError(path, problems));
    };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage({ path });
  }).finally(() => worker.terminate());
}
