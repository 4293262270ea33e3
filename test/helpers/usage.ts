import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ACCOUNTS_FILE } from "../../src/db/open.ts";

/** The calls of an account written to usage_daily in a data dir's accounts database (all days). */
export function writtenUsage(dataDir: string, accountId: number): number {
  const db = new Database(join(dataDir, ACCOUNTS_FILE), { readonly: true });
  try {
    return (db.query("SELECT coalesce(sum(count), 0) AS n FROM usage_daily WHERE subject = ?").get(`account:${accountId}`) as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * Resolves once a server in another process has written at least `calls` calls of the account
 * (it flushes its counts in batches, on a timer that a busy machine delays: wait for the write,
 * not for the timer's nominal time). The test's timeout bounds the wait.
 */
export async function usageWritten(dataDir: string, accountId: number, calls: number): Promise<number> {
  for (;;) {
    const written = writtenUsage(dataDir, accountId);
    if (written >= calls) return written;
    await Bun.sleep(50);
  }
}
