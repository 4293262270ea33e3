import type { Database } from "bun:sqlite";
import { loadSettings } from "../config.ts";
import { openDataDir } from "../db/open.ts";
import { requireMehirData } from "./data-dir.ts";

/**
 * Runs `work` on the accounts database of the data dir (flag, else MEHIR_DATA_DIR, else the
 * default), closing both databases afterwards. Writes here are seen by a running `serve`
 * within a second (it polls PRAGMA data_version). A folder with no mehir data is refused unless
 * `create` (`mehir accounts create --create`; `creatable`: the command takes --create).
 */
export function withAccountsDb<T>(dataDirFlag: string | undefined, work: (accounts: Database) => T, options: { create?: boolean; creatable?: boolean } = {}): T {
  const settings = loadSettings(process.env, { dataDir: dataDirFlag });
  requireMehirData(settings.dataDir, options);
  const db = openDataDir(settings.dataDir);
  try {
    return work(db.accounts);
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}
