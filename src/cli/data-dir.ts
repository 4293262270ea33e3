import { existsSync } from "node:fs";
import { join } from "node:path";
import { ACCOUNTS_FILE, PRICES_FILE } from "../db/open.ts";

/** A data dir a command needs that holds no mehir data: said in one sentence, exit 1. */
export class NoMehirDataError extends Error {
  override name = "NoMehirDataError";
}

/** Whether `dataDir` holds mehir's databases (what `mehir serve` makes on first start). */
export function hasMehirData(dataDir: string): boolean {
  return existsSync(join(dataDir, PRICES_FILE)) || existsSync(join(dataDir, ACCOUNTS_FILE));
}

/**
 * Refuses a data dir with no mehir data, so a mistyped `--data-dir` does not quietly become a
 * new, empty one (keys made there are unknown to the running server). Commands that may start a
 * data dir (`accounts create`) offer `--create`; the others only read what is there. `file`: the
 * database the command reads (status and export need the prices).
 */
export function requireMehirData(dataDir: string, options: { create?: boolean; creatable?: boolean; file?: string } = {}): void {
  if (options.create || (options.file ? existsSync(join(dataDir, options.file)) : hasMehirData(dataDir))) return;
  const create = options.creatable ? ", or pass `--create`" : "";
  throw new NoMehirDataError(`no mehir data in ${dataDir} — start \`mehir serve --data-dir ${dataDir}\` first${create}`);
}
