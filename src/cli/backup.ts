import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { loadSettings } from "../config.ts";
import { requireMehirData } from "./data-dir.ts";
import { ACCOUNTS_FILE, PRICES_FILE, openDataDir } from "../db/open.ts";
import { SECRET_KEY_FILE } from "../alerts/secret-box.ts";

/**
 * Online backup of both databases with `VACUUM INTO`: a consistent snapshot taken while
 * `serve` keeps running (WAL readers and the writer are not blocked). The copies hold what
 * accounts.sqlite holds (key and password hashes): they and a folder made for them are created
 * readable by the owner only, whatever the umask.
 */
export function backupDataDir(dataDir: string, outDir: string): string[] {
  const umask = process.umask(0o077);
  try {
    return backupWithUmask(dataDir, outDir);
  } finally {
    process.umask(umask);
  }
}

function backupWithUmask(dataDir: string, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  if (readdirSync(outDir).some((f) => f === PRICES_FILE || f === ACCOUNTS_FILE)) {
    throw new UsageError(`${outDir} already holds a backup; choose an empty folder`);
  }
  const db = openDataDir(dataDir);
  const written: string[] = [];
  try {
    for (const [name, handle] of [[ACCOUNTS_FILE, db.accounts], [PRICES_FILE, db.prices]] as const) {
      const target = resolve(join(outDir, name));
      handle.run("VACUUM INTO ?", [target]);
      chmodSync(target, 0o600);
      written.push(target);
    }
  } finally {
    db.prices.close();
    db.accounts.close();
  }
  // The key that unseals the price alerts' signing secrets (without it they cannot sign).
  const key = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(key)) {
    const target = resolve(join(outDir, SECRET_KEY_FILE));
    copyFileSync(key, target);
    chmodSync(target, 0o600);
    written.push(target);
  }
  return written;
}

export const backupCommand: Command = {
  name: "backup",
  summary: "Copy the databases (accounts and prices) to a folder, online",
  help: `Usage: mehir backup DIR [--data-dir DIR]

Writes consistent copies of accounts.sqlite and prices.sqlite into DIR (created if needed,
must not already hold a backup) while the server keeps running, and webhook-secrets.key (the
key of the price alerts' signing secrets) when there is one. To restore: stop the
server and run \`mehir restore DIR --data-dir DATA-DIR\`.`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values, positionals } = parseFlags(args, { "data-dir": { type: "string" } }, true);
    if (positionals.length !== 1) throw new UsageError("give exactly one target folder");
    const settings = loadSettings(process.env, { dataDir: values["data-dir"] });
    requireMehirData(settings.dataDir);
    for (const file of backupDataDir(settings.dataDir, positionals[0]!)) console.log(file);
    return 0;
  },
};
