/**
 * Worker entrypoint: `PRAGMA quick_check` of a database file off the calling thread (it reads
 * every page). Started by integrity-check.ts; the compiled binary lists this file as an extra
 * entrypoint (src/workers.ts).
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ path: string }>) => {
  try {
    const db = new Database(event.data.path, { readonly: true, strict: true });
    try {
      db.run("PRAGMA busy_timeout = 10000");
      const problems = (db.query("PRAGMA quick_check(5)").values() as [string][]).map((row) => row[0]);
      self.postMessage({ kind: "done", problems: problems.length === 1 && problems[0] === "ok" ? [] : problems });
    } finally {
      db.close();
    }
  } catch (error) {
    self.postMessage({ kind: "done", problems: [(error as Error).message] });
  }
};
