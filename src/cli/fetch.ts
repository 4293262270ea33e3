import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { fetchChainsOf, loadSettings } from "../config.ts";
import { openDataDir } from "../db/open.ts";
import { syncRegistry } from "../db/sync-registry.ts";
import { setLogLevel, setLogStream } from "../lib/log.ts";
import { loadRegistry } from "../registry.ts";
import { FetchUsageError, type FetchReport } from "../ingest/sources/fetch-chains.ts";
import { fetchAndImport, FetchImportError, type FetchAndImportResult } from "../ingest/sources/fetch-and-import.ts";
import { runImportInWorker } from "../ingest/run/run-in-worker.ts";
import { archiveLimitsOf } from "../ingest/run/collect.ts";
import { FetchBusyError } from "../ingest/sources/fetch-lock.ts";
import { loadSourcesFile, SourcesFileError } from "../ingest/sources/overrides.ts";
import { describe } from "../ingest/sources/reachability.ts";
import { formatImportReport } from "./import-report.ts";

/**
 * One line per chain (slug, status, files, first error), then one line per reason portals could
 * not be reached at all, naming the hosts and the chains it stopped: with no network, one line
 * ("cannot resolve url.publishedprices.co.il, prices.shufersal.co.il and 18 more: no network?")
 * instead of thirty copies of it.
 */
export function formatReport(report: FetchReport): string {
  const width = Math.max(4, ...report.chains.map((c) => c.slug.length));
  const lines = [`fetch ${report.date}: ${report.files.length} new file(s)`];
  const causes = new Map<string, { failure: string; reason: string; subjects: Set<string>; chains: Set<string> }>();
  for (const c of report.chains) {
    const counts = `${c.downloaded.length} new, ${c.alreadyFetched} already fetched, ${c.selected} selected of ${c.listed} listed`;
    const notReached = c.unreachable.length > 0 && c.errors.every((e) => c.unreachable.some((u) => e.includes(describe(u))));
    const error = notReached ? "  — not reached (below)" : c.status === "blocked" ? `  — ${c.statusReason}` : c.errors[0] ? `  — ${c.errors[0]}` : "";
    const adopted = Object.entries(c.adopted).map(([slug, n]) => `${n} of ${slug}`);
    const others = [...(adopted.length ? [`fetched as another chain's: ${adopted.join(", ")}`] : []), ...(c.unknownCodes.length ? [`unknown chain code ${c.unknownCodes.join(", ")}`] : [])];
    lines.push(`  ${c.slug.padEnd(width)}  ${c.status.padEnd(7)}  ${counts}${error}${others.length ? ` (${others.join("; ")})` : ""}`);
    for (const u of c.unreachable) {
      const key = `${u.failure}\0${u.reason}`;
      const cause = causes.get(key) ?? { failure: u.failure, reason: u.reason, subjects: new Set(), chains: new Set() };
      causes.set(key, cause);
      cause.subjects.add(u.subject);
      cause.chains.add(c.slug);
    }
  }
  if (causes.size > 0) lines.push(`not reached (${causes.size} cause${causes.size > 1 ? "s" : ""}):`);
  for (const cause of causes.values()) lines.push(`  ${cause.failure} ${listed([...cause.subjects], 3)}: ${cause.reason}  (chains: ${listed([...cause.chains], 4)})`);
  return lines.join("\n");
}

/** @example listed(["a", "b", "c", "d", "e"], 3) // "a, b, c and 2 more" */
function listed(items: string[], shown: number): string {
  return items.length > shown ? `${items.slice(0, shown).join(", ")} and ${items.length - shown} more` : items.join(", ");
}

/** The import runner `mehir fetch` hands to fetchAndImport (tests replace it). */
export type ImportRunner = typeof runImportInWorker;

/** `mehir fetch`: fetchAndImport for one-off runs (the same function `serve` runs daily in live mode). */
export function createFetchCommand(runImport: ImportRunner = runImportInWorker): Command {
  return {
    name: "fetch",
    summary: "Download the day's price files from the chains' portals and import them",
    help: `Usage: mehir fetch [--chain SLUG]... [--date YYYY-MM-DD] [--deltas] [--data-dir DIR] [--sources-file FILE]

Lists each chain's portal, downloads the newest Stores, PriceFull and PromoFull file per store
for the day (Israel time; default today) and for the MEHIR_FETCH_BACKFILL_DAYS days before it
(default 2; files not fetched yet, newer than what was), into
<data-dir>/downloads/<chain>/<file's day>/, skipping files fetched before, then imports them as live data in a worker (replacing demo data, never
mixing) — the same run \`mehir serve\` makes daily with MEHIR_SOURCE=live. A chain that fails
keeps its previous data; its error is recorded in its health (GET /api/v1/chains/). Download
folders older than 7 days are removed.

Options:
  --chain SLUG          Only this chain (repeatable); default MEHIR_FETCH_CHAINS, else every active chain
  --date YYYY-MM-DD     The day to fetch (default today in Israel)
  --deltas              Also fetch the day's Price/Promo updates after each full file
  --data-dir DIR        Data folder (MEHIR_DATA_DIR; default ./mehir-data)
  --sources-file FILE   Portal overrides, JSON slug → { base_url, username, password } (MEHIR_SOURCES_FILE)

Network: HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured, and a per-chain "proxy" in the
sources file (several portals refuse non-Israeli and data-centre addresses: docs/operations.md "Egress");
MEHIR_USER_AGENT replaces the User-Agent. NODE_EXTRA_CA_CERTS adds CA certificates (the Cerberus HTTPS site
has been seen without its intermediate certificate; its FTP fallback, ftp:// or ftps://,
switches to TLS when the server asks).

Before anything else every portal (and proxy) is resolved and connected to once, all at the
same time, within 10 s; a portal that cannot be reached is not tried, and the report ends with
one line per cause ("cannot resolve url.publishedprices.co.il: no network?"), so a run with no
network fails in seconds. The report goes to stdout, JSON log lines to stderr.
Exit status 1 when any chain failed.`,
    async run(args) {
      if (wantsHelp(args)) {
        console.log(this.help);
        return 0;
      }
      const { values } = parseFlags(args, {
        chain: { type: "string", multiple: true },
        date: { type: "string" },
        deltas: { type: "boolean" },
        "data-dir": { type: "string" },
        "sources-file": { type: "string" },
      });
      if (values.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) throw new UsageError(`--date expects YYYY-MM-DD, got "${values.date}"`);
      const settings = loadSettings(process.env, { dataDir: values["data-dir"], sourcesFile: values["sources-file"] });
      setLogLevel(settings.logLevel);
      // The report is the command's output (stdout); the JSON log lines are diagnostics (stderr).
      setLogStream("stderr");
      const registry = loadRegistry();
      const chains = values.chain ?? fetchChainsOf(settings);
      for (const slug of chains ?? []) {
        if (!registry.bySlug.has(slug)) throw new UsageError(`unknown chain "${slug}"; known: ${registry.chains.map((c) => c.slug).join(", ")}`);
      }
      let sourcesOverride;
      try {
        sourcesOverride = settings.sourcesFile ? loadSourcesFile(settings.sourcesFile) : undefined;
      } catch (error) {
        if (error instanceof SourcesFileError) throw new UsageError(error.message);
        throw error;
      }
      const db = openDataDir(settings.dataDir);
      try {
        syncRegistry(db.prices, registry);
        let result: FetchAndImportResult;
        try {
          result = await fetchAndImport({
            db: db.prices,
            registry,
            dataDir: settings.dataDir,
            chains,
            date: values.date,
            backfillDays: settings.fetchBackfillDays,
            http: settings.userAgent ? { userAgent: settings.userAgent } : undefined,
            deltas: values.deltas ?? false,
            sourcesOverride,
            runImport,
            importPriority: settings.importPriority,
            archiveLimits: archiveLimitsOf(settings),
            historyMonths: settings.historyMonths,
          });
        } catch (error) {
          if (error instanceof FetchUsageError) throw new UsageError(error.message);
          if (error instanceof FetchBusyError) {
            console.error(`mehir fetch: ${error.message}`);
            return 1;
          }
          if (!(error instanceof FetchImportError)) throw error;
          console.log(formatReport(error.fetch));
          console.error(`mehir fetch: ${error.message}`);
          return 1;
        }
        const report = result.fetch;
        console.log(formatReport(report));
        if (result.import) console.log(formatImportReport(result.import, { width: process.stdout.columns ?? 160 }));
        if (result.import?.status === "failed") return 1;
        return report.chains.some((c) => c.status === "failed" || c.status === "blocked") ? 1 : 0;
      } finally {
        db.prices.close();
        db.accounts.close();
      }
    },
  };
}

export const fetchCommand: Command = createFetchCommand();
