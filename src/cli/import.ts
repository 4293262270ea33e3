import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { loadSettings } from "../config.ts";
import { openDataDir } from "../db/open.ts";
import { setLogLevel } from "../lib/log.ts";
import { loadRegistry } from "../registry.ts";
import { importPaths } from "../ingest/run/import.ts";
import { archiveLimitsOf } from "../ingest/run/collect.ts";
import type { ImportReport } from "../ingest/run/report.ts";
import { runAtImportPriority } from "../ingest/run/import-priority.ts";
import { formatImportReport, formatImportSummary, progressLine, runCases } from "./import-report.ts";

/**
 * 0 when something was imported, or when every file was skipped as already loaded (re-running an
 * import of the same folder is not a failure); 1 when files could not be imported.
 */
export function importExitStatus(report: ImportReport): number {
  const { imported, skipped, files } = report.totals;
  if (imported > 0 && report.dataVersion !== null) return 0;
  return files > 0 && skipped === files ? 0 : 1;
}

export const importCommand: Command = {
  name: "import",
  summary: "Import price files and folders (gz, zip, plain XML) into the data dir",
  help: `Usage: mehir import <path>... [--data-dir DIR] [--source demo|live] [--replace] [--verbose | --json]

Imports the chains' price-transparency files — Stores, PriceFull/Price, PromoFull/Promo, in
any of their dialects, gzip, zip or plain XML, any file name — from the given files and
folders (recursively; a .zip holding several files imports each of them) in one
transaction: a running server keeps serving the previous data until the import commits, and
an interrupted import changes nothing. Bad files are reported and skipped; the rest imports.

Options:
  --data-dir DIR      Data folder (MEHIR_DATA_DIR; default ./mehir-data)
  --source demo|live  What the files are (default live: files published by the chains).
                      Data of the other source is replaced, never mixed.
  --replace           Delete the current price data first (same source)
  --verbose           Print a line per file (status, type, chain, store, rows, cases, reason)
                      before the summary
  --json              Print the report as JSON instead

Without --verbose or --json it prints a summary: the files and rows imported, the rejected (and
partly read) files grouped by reason with an example of each, and the cases of what the files
held that the service did not use.

A .zip of several files is unpacked to a temporary folder (TMPDIR) within bounds
(MEHIR_IMPORT_MAX_ENTRY_BYTES, _ARCHIVE_BYTES, _RUN_BYTES: 256 MiB, 4 GiB, 8 GiB); an entry
past them, or one that cannot be written, is reported and skipped, and an archive whose
entries share data (a zip bomb) is refused whole.
A path that does not exist is reported like a bad file (usage error when none exists).
The import runs at a lower CPU priority (MEHIR_IMPORT_PRIORITY, default idle: only CPU time
nothing else wants) so a server on the same machine stays responsive.
On a terminal a progress bar is drawn on stderr while the files load.

Exit status: 0 when at least one file was imported, or when every file was already loaded
(skipped: nothing new); 1 when none could be imported.`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values, positionals } = parseFlags(
      args,
      { "data-dir": { type: "string" }, source: { type: "string" }, replace: { type: "boolean" }, json: { type: "boolean" }, verbose: { type: "boolean" } },
      true,
    );
    if (positionals.length === 0) throw new UsageError("give at least one file or folder to import");
    const source = values.source ?? "live";
    if (source !== "demo" && source !== "live") throw new UsageError(`--source expects demo or live, got "${source}"`);
    // One missing path among others is reported in the run's table; the rest still imports.
    if (!positionals.some((path) => existsSync(path))) throw new UsageError(`no such file or folder: ${positionals.join(", ")}`);
    const settings = loadSettings(process.env, { dataDir: values["data-dir"] });
    setLogLevel(settings.logLevel);

    runAtImportPriority(settings.importPriority);
    const db = openDataDir(settings.dataDir);
    const tty = process.stderr.isTTY && !values.json;
    try {
      const report = await importPaths({
        db: db.prices,
        registry: loadRegistry(),
        paths: positionals,
        origin: "cli",
        source,
        replaceSource: values.replace === true,
        archiveLimits: archiveLimitsOf(settings),
        historyMonths: settings.historyMonths,
        onProgress: tty ? (done, total, file) => process.stderr.write(progressLine(done, total, file, process.stderr.columns ?? 80)) : undefined,
      });
      if (tty) process.stderr.write("\r\x1b[2K");
      if (values.json) console.log(JSON.stringify({ ...report, cases: runCases(report) }, null, 2));
      else if (values.verbose) console.log(formatImportReport(report, { width: process.stdout.columns ?? 160 }));
      else console.log(formatImportSummary(report));
      if (!values.json && report.dataVersion !== null) console.log(`data dir: ${join(settings.dataDir)}`);
      return importExitStatus(report);
    } finally {
      db.prices.close();
      db.accounts.close();
    }
  },
};
