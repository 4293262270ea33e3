import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { loadSettings } from "../config.ts";
import { ACCOUNTS_FILE, PRICES_FILE, openDataDir } from "../db/open.ts";
import { compactDatabase, type DatabaseSpace } from "../db/compaction.ts";

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const describe = (s: DatabaseSpace) => `${mib(s.bytes)} (${mib(s.freeBytes)} free, auto_vacuum ${s.autoVacuum})`;

export const compactCommand: Command = {
  name: "compact",
  summary: "Rewrite the databases compactly and switch them to giving freed space back",
  help: `Usage: mehir compact [--data-dir DIR]

Rewrites prices.sqlite and accounts.sqlite (VACUUM) in incremental auto-vacuum mode, so that the
space each import's pruning frees is given back to the disk from then on. Data dirs created by
this version are in that mode already; one made by an earlier version needs this once.

Safe while the server runs: requests keep being answered from the data as it was; an import
waits until the rewrite ends (run it at a quiet hour, away from MEHIR_FETCH_AT). Needs free disk
of about the larger database's size while it runs.`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values } = parseFlags(args, { "data-dir": { type: "string" } });
    const settings = loadSettings(process.env, { dataDir: values["data-dir"] });
    if (!existsSync(join(settings.dataDir, PRICES_FILE))) throw new UsageError(`no data dir at ${settings.dataDir}`);
    const db = openDataDir(settings.dataDir);
    try {
      for (const [name, handle] of [[PRICES_FILE, db.prices], [ACCOUNTS_FILE, db.accounts]] as const) {
        const { before, after } = compactDatabase(handle);
        console.log(`${name}: ${describe(before)} → ${describe(after)}`);
      }
    } finally {
      db.prices.close();
      db.accounts.close();
    }
    return 0;
  },
};
