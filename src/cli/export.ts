import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { requireMehirData } from "./data-dir.ts";
import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { loadSettings } from "../config.ts";
import { openDatabase, PRICES_FILE } from "../db/open.ts";
import { writeExport, type Manifest } from "../exports/write.ts";
import { EXPORTS_DIR, ExportStore } from "../exports/store.ts";
import { MANIFEST_FILE } from "../exports/tables.ts";

/** Writes an export of the data now in `dataDir` into `outDir` (created if needed; must be empty). */
export async function exportNow(dataDir: string, outDir: string, now = new Date()): Promise<Manifest> {
  const db = openDatabase(join(dataDir, PRICES_FILE), [], { readonly: true });
  try {
    const manifest = await writeExport(db, outDir, now);
    if (!manifest) throw new UsageError(`nothing imported yet in ${dataDir}`);
    return manifest;
  } finally {
    db.close();
  }
}

/** Copies the stored export of `date` into `outDir`. */
export function copyStoredExport(dataDir: string, date: string, outDir: string): Manifest {
  const store = new ExportStore(join(dataDir, EXPORTS_DIR));
  const manifest = store.manifest(date);
  if (!manifest) {
    const dates = store.list().map((m) => m.date);
    throw new UsageError(`no export of ${date} in ${store.root}${dates.length ? ` (there are: ${dates.join(", ")})` : " (there are none yet)"}`);
  }
  for (const name of [...manifest.files.map((f) => f.name), MANIFEST_FILE]) copyFileSync(store.filePath(date, name)!, join(outDir, name));
  return manifest;
}

export const exportCommand: Command = {
  name: "export",
  summary: "Write the data as gzipped CSVs with a manifest (or copy a day's stored export)",
  help: `Usage: mehir export DIR [--date YYYY-MM-DD] [--data-dir DIR]

Writes an export of the data into DIR (created if needed; must be empty): one gzipped CSV per
table (chains, stores, products, prices, promotions, promotion_items) with a header row, and
manifest.json with each file's row count, size and SHA-256 — the same files the server writes
after each import into <data-dir>/exports/<date>/ and serves at /api/v1/exports/.

Without --date it exports the data as it is now, read as one consistent snapshot while the
server and imports keep running. With --date it copies that day's stored export instead.`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values, positionals } = parseFlags(args, { "data-dir": { type: "string" }, date: { type: "string" } }, true);
    if (positionals.length !== 1) throw new UsageError("give exactly one target folder");
    const date = values.date;
    if (date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new UsageError(`--date is YYYY-MM-DD, not ${JSON.stringify(date)}`);
    const settings = loadSettings(process.env, { dataDir: values["data-dir"] });
    requireMehirData(settings.dataDir, { file: PRICES_FILE });
    const outDir = positionals[0]!;
    mkdirSync(outDir, { recursive: true });
    if (readdirSync(outDir).length > 0) throw new UsageError(`${outDir} is not empty; choose an empty folder`);
    const manifest = date === undefined ? await exportNow(settings.dataDir, outDir) : copyStoredExport(settings.dataDir, date, outDir);
    for (const f of manifest.files) console.log(`${f.name.padEnd(24)} ${String(f.rows).padStart(10)} rows ${String(f.bytes).padStart(12)} bytes  sha256 ${f.sha256}`);
    console.log(`${join(outDir, MANIFEST_FILE)}  (data of ${manifest.date}, version ${manifest.data_version})`);
    return 0;
  },
};
