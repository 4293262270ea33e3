import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { loadSettings } from "../config.ts";
import { ACCOUNTS_FILE, PRICES_FILE, openDataDir } from "../db/open.ts";
import { makePrivateDir } from "../db/private-files.ts";
import { NewerDatabaseError } from "../db/migrate.ts";
import { PRICE_MIGRATIONS } from "../db/price-schema.ts";
import { ACCOUNT_MIGRATIONS } from "../db/account-schema.ts";
import { SECRET_KEY_FILE } from "../alerts/secret-box.ts";

/** What a data dir holds that a restore replaces (the databases with their -wal/-shm, the alerts' key). */
const DATA_FILES = [PRICES_FILE, ACCOUNTS_FILE].flatMap((f) => [f, `${f}-wal`, `${f}-shm`]).concat(SECRET_KEY_FILE);

export interface RestoreSummary {
  files: string[];
  accounts: number;
  keys: number;
  dataVersion: number;
}

/**
 * Checks a backup made by `mehir backup` (both databases present, sound — PRAGMA integrity_check —
 * and not from a newer mehir), then copies it into `dataDir` (made 0700; files 0600) and brings
 * its schema up to date. `dataDir` must be empty or missing unless `force`, which replaces its
 * databases and key (other files, e.g. downloads, stay). The server must not be running on it.
 *
 * @example restoreBackup("/backups/2026-11-22", "/var/lib/mehir", { force: false }) // { accounts: 12, keys: 30, dataVersion: 41, files: [...] }
 */
export function restoreBackup(backupDir: string, dataDir: string, options: { force: boolean }): RestoreSummary {
  for (const [file, migrations] of [[ACCOUNTS_FILE, ACCOUNT_MIGRATIONS], [PRICES_FILE, PRICE_MIGRATIONS]] as const) {
    const path = join(backupDir, file);
    if (!existsSync(path)) throw new UsageError(`${backupDir} holds no ${file}: not a backup made by \`mehir backup\``);
    checkBackupFile(path, migrations[migrations.length - 1]!.version);
  }
  const present = existsSync(dataDir) ? readdirSync(dataDir) : [];
  if (present.length > 0 && !options.force) {
    throw new UsageError(`${dataDir} is not empty (${present.slice(0, 3).join(", ")}${present.length > 3 ? ", …" : ""}); restore into an empty folder, or pass --force to replace its databases`);
  }
  makePrivateDir(dataDir);
  const umask = process.umask(0o077);
  const files: string[] = [];
  try {
    for (const file of DATA_FILES) rmSync(join(dataDir, file), { force: true });
    for (const file of [ACCOUNTS_FILE, PRICES_FILE, SECRET_KEY_FILE]) {
      const from = join(backupDir, file);
      if (!existsSync(from)) continue;
      // Copied beside, then renamed: a restore cut short leaves no half file under the real name.
      const target = join(dataDir, file);
      copyFileSync(from, `${target}.restoring`);
      chmodSync(`${target}.restoring`, 0o600);
      renameSync(`${target}.restoring`, target);
      files.push(target);
    }
  } finally {
    process.umask(umask);
  }
  // Opening migrates a backup made by an earlier version to this one's schema.
  const db = openDataDir(dataDir);
  try {
    const count = (sql: string) => (db.accounts.query(sql).get() as { n: number }).n;
    const version = db.prices.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | null;
    return { files, accounts: count("SELECT count(*) AS n FROM accounts"), keys: count("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL"), dataVersion: Number(version?.value ?? 0) };
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}

/** Refuses a damaged backup file, or one written by a newer mehir, before anything is copied. */
function checkBackupFile(path: string, known: number): void {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version > known) throw new NewerDatabaseError(path, version, known);
    const problems = (db.query("PRAGMA integrity_check").values() as [string][]).map(([line]) => line).filter((line) => line !== "ok");
    if (problems.length > 0) throw new UsageError(`${path} is damaged (PRAGMA integrity_check: ${problems.slice(0, 3).join("; ")}); nothing was restored`);
  } catch (error) {
    if (error instanceof UsageError || error instanceof NewerDatabaseError) throw error;
    throw new UsageError(`${path} is not a readable database (${(error as Error).message}); nothing was restored`);
  } finally {
    db.close();
  }
}

export const restoreCommand: Command = {
  name: "restore",
  summary: "Bring a backup made by `mehir backup` back into a data dir",
  help: `Usage: mehir restore BACKUP-DIR --data-dir DIR [--force]

Checks the backup in BACKUP-DIR (both databases present and sound, not made by a newer mehir),
then copies accounts.sqlite, prices.sqlite and webhook-secrets.key (when the backup has it) into
DIR, readable by their owner only, and brings their schema up to date. DIR must be empty or
missing; --force replaces the databases and key of a non-empty DIR (other files stay).
Stop the server on DIR first; start it again when this is done.`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values, positionals } = parseFlags(args, { "data-dir": { type: "string" }, force: { type: "boolean" } }, true);
    if (positionals.length !== 1) throw new UsageError("give exactly one backup folder");
    const settings = loadSettings(process.env, { dataDir: values["data-dir"] });
    if (!existsSync(positionals[0]!)) throw new UsageError(`no backup folder at ${positionals[0]}`);
    const summary = restoreBackup(positionals[0]!, settings.dataDir, { force: values.force === true });
    for (const file of summary.files) console.log(file);
    console.log(`restored: ${summary.accounts} accounts, ${summary.keys} active keys, price data version ${summary.dataVersion}`);
    return 0;
  },
};
