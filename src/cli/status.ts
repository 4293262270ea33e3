import { join } from "node:path";
import { parseFlags, wantsHelp, type Command } from "./command.ts";
import { requireMehirData } from "./data-dir.ts";
import { loadSettings } from "../config.ts";
import { openDatabase, PRICES_FILE } from "../db/open.ts";
import { loadRegistry } from "../registry.ts";
import { chainFreshness, type ChainFreshness } from "../ingest/sources/freshness.ts";
import { toIsraelIso } from "../lib/time.ts";
import { databaseSpace, type DatabaseSpace } from "../db/compaction.ts";

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** The prices database's size and the space pruning freed inside it (docs/operations.md "Retention and disk"). */
function databaseLine(d: { file: string; bytes: number; free_bytes: number; free_pages: number; auto_vacuum: string }): string {
  const giveBack = d.auto_vacuum === "incremental" ? "given back to the disk after each import" : "reused by new data; `mehir compact` gives it back";
  return `\n${d.file}: ${mb(d.bytes)}, of which ${mb(d.free_bytes)} free (${d.free_pages} pages; ${giveBack})`;
}

/** `2026-11-22T05:30:00+02:00` → `2026-11-22 05:30` (Israel time, as stored); `-` when none. */
const short = (iso: string | null): string => (iso ? iso.slice(0, 16).replace("T", " ") : "-");

/** @example ago("2026-11-22T03:00:00+02:00", new Date("2026-11-22T10:00:00Z")) // "9h ago" */
function ago(iso: string | null, now: Date): string {
  if (!iso) return "";
  const minutes = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 60_000));
  if (minutes < 60) return `${minutes}m ago`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)}h ago`;
  return `${Math.floor(minutes / 1440)}d ago`;
}

/**
 * The freshness table: one line per chain (status, newest file and its age, last attempt, last
 * success, next run, the reason it is not ok or its last error), then a count per status.
 * Lines are cut to `width` columns (a terminal's), never below the fixed columns.
 */
export function formatStatus(rows: ChainFreshness[], now: Date, width = Infinity): string {
  const head = ["CHAIN", "STATUS", "NEWEST FILE", "LAST ATTEMPT", "LAST SUCCESS", "NEXT RUN", "PROBLEM"];
  const cells = rows.map((r) => [
    r.chain,
    r.status,
    r.newest_file_at ? `${short(r.newest_file_at)} (${ago(r.newest_file_at, now)})` : "-",
    short(r.last_attempt_at),
    short(r.last_success_at),
    short(r.next_run_at),
    (r.status_reason ?? r.last_error ?? "").replace(/\s+/g, " "),
  ]);
  const widths = head.slice(0, -1).map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => {
    const text = c.map((v, i) => (i < widths.length ? v.padEnd(widths[i]!) : v)).join("  ").trimEnd();
    const room = Math.max(widths.reduce((n, w) => n + w + 2, 0) + 10, width);
    return text.length > room ? `${text.slice(0, room - 1)}…` : text;
  };
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const summary = ["ok", "stale", "failing", "blocked", "no_data"].filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${s.replace("_", " ")}`);
  return [line(head), ...cells.map(line), "", `${rows.length} chains: ${summary.join(", ")} (at ${short(toIsraelIso(now))}, Israel time)`].join("\n");
}

export const statusCommand: Command = {
  name: "status",
  summary: "Show each chain's freshness: newest file, last attempt and success, next run, problems",
  help: `Usage: mehir status [--json] [--data-dir DIR]

Prints one line per chain (every active chain, and any other chain fetched before) from the data
dir's records, while the server runs or not:

  STATUS        ok; stale (newest imported data older than 36 h); failing (the last fetch
                failed); blocked (the portal refused this address: a challenge page, HTTP 247
                or 403, or no answer — see docs/operations.md "Egress"); no_data (nothing imported yet)
  NEWEST FILE   publication time of the newest file the chain's portal listed, and its age
  LAST ATTEMPT  when the portal was last tried; LAST SUCCESS when a fetch last succeeded
  NEXT RUN      when the collection loop lists the chain next (live mode)
  PROBLEM       why the chain is not ok, or the last fetch error

Then the prices database's size and its free space (pages pruning freed). Times are Israel time.
--json prints the same as one JSON object ({ data_dir, at, database, chains: [...] }, times in ISO 8601). Nothing is written: a folder with no mehir data is refused, not created.

Options:
  --json           JSON instead of the table
  --data-dir DIR   Data folder (MEHIR_DATA_DIR; default ./mehir-data)`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values } = parseFlags(args, { json: { type: "boolean" }, "data-dir": { type: "string" } });
    const settings = loadSettings(process.env, { dataDir: values["data-dir"] });
    const path = join(settings.dataDir, PRICES_FILE);
    requireMehirData(settings.dataDir, { file: PRICES_FILE });
    const now = new Date();
    const db = openDatabase(path, [], { readonly: true });
    let rows: ChainFreshness[];
    let space: DatabaseSpace;
    try {
      rows = chainFreshness(db, loadRegistry(), now);
      space = databaseSpace(db);
    } finally {
      db.close();
    }
    const database = { file: PRICES_FILE, bytes: space.bytes, free_bytes: space.freeBytes, free_pages: space.freePages, auto_vacuum: space.autoVacuum };
    if (values.json) console.log(JSON.stringify({ data_dir: settings.dataDir, at: toIsraelIso(now), database, chains: rows }, null, 2));
    else {
      console.log(formatStatus(rows, now, process.stdout.isTTY ? (process.stdout.columns ?? 160) : Infinity));
      console.log(databaseLine(database));
    }
    return 0;
  },
};
