import type { ImportReport } from "../ingest/run/report.ts";

const n = (value: number) => value.toLocaleString("en-US");

function cut(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, width - 1) + "…";
}

/** What a file contained that the service did not use (or used its own way), per case. */
const CASES: [key: string, label: string][] = [
  ["duplicates", "repeated"],
  ["conflicting", "at 2 prices"],
  ["unknownItems", "awaiting product"],
  ["gifts", "gifts"],
  ["unreadableDates", "bad dates"],
  ["closed", "closed"],
  ["reopened", "reopened"],
  ["older", "older list"],
  ["skipped", "other chains"],
];

/**
 * A file's case counts (empty when none); docs/api.md "Import report" says what each means.
 * @example caseCounts(file.counts) // "2 awaiting product, 1 bad dates"
 */
export function caseCounts(counts: Record<string, number>): string {
  return CASES.filter(([key]) => (counts[key] ?? 0) > 0)
    .map(([key, label]) => `${n(counts[key]!)} ${label}`)
    .join(", ");
}

/** The case counts of a run, summed over its files. */
export function runCases(report: ImportReport): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const f of report.files) for (const [key] of CASES) if (f.counts[key]) sums[key] = (sums[key] ?? 0) + f.counts[key]!;
  return sums;
}

/**
 * The per-file table and summary `mehir import --verbose` prints.
 * @example formatImportReport(report)
 * // status    type       chain       store  rows   file                                    reason
 * // ok        pricefull  rami-levy   1      3,512  PriceFull7290058140886-001-202611220300.gz
 * // …
 * // imported 2 of 3 files (1 rejected) — 3,530 rows in 0.4 s; data version 7
 */
export function formatImportReport(report: ImportReport, options: { width?: number } = {}): string {
  const width = options.width ?? 160;
  const header = ["status", "type", "chain", "store", "rows", "file", "cases", "reason"];
  const rows = report.files.map((f) => [
    f.status,
    f.type ?? "?",
    f.chainSlug ?? f.chainCode ?? "?",
    f.storeCode ?? "",
    n(f.rows),
    f.fileName,
    caseCounts(f.counts),
    [f.reason, ...f.warnings].filter(Boolean).join("; "),
  ]);
  const widths = header.map((h, i) => Math.min(i === 5 || i === 6 ? 48 : 24, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: string[]) => {
    const fixed = cells.slice(0, 7).map((c, i) => (i === 4 ? cut(c, widths[i]!).padStart(widths[i]!) : cut(c, widths[i]!).padEnd(widths[i]!))).join("  ");
    const rest = Math.max(10, width - fixed.length - 2);
    return cells[7] ? `${fixed}  ${cut(cells[7], rest)}` : fixed.trimEnd();
  };
  return [line(header), ...rows.map(line), "", formatImportSummary(report, { hint: false })].join("\n");
}

/** How many rejected-file reasons the summary lists (the rest are counted in one line). */
const REASONS_SHOWN = 8;

/**
 * What `mehir import` prints without --verbose: the run in one line, then the rejected (and
 * partly read) files grouped by reason with a count and one file's name, the cases, and where
 * the per-file table is.
 * @example formatImportSummary(report)
 * // imported 3 of 4 files (1 rejected) — 42 rows (40 prices) in 0.3 s; data version 1
 * // rejected, by reason:
 * //   1 × unknown chain 7290000000999  (e.g. PriceFull7290000000999-001-202611210300.xml)
 */
export function formatImportSummary(report: ImportReport, options: { hint?: boolean } = {}): string {
  const t = report.totals;
  const notes = [
    t.partial ? `${t.partial} partial` : "",
    t.rejected ? `${t.rejected} rejected` : "",
    t.skipped ? `${t.skipped} skipped` : "",
  ].filter(Boolean);
  const outcome =
    report.dataVersion !== null
      ? `data version ${report.dataVersion}${report.replaced ? ` (previous ${report.source === "live" ? "demo" : "live"} data replaced)` : ""}`
      : `nothing changed${report.error ? `: ${report.error}` : ""}`;
  const lines = [
    `imported ${n(t.imported)} of ${n(t.files)} files${notes.length ? ` (${notes.join(", ")})` : ""} — ` +
      `${n(t.rows)} rows (${n(t.priceRows)} prices) in ${(report.durationMs / 1000).toFixed(1)} s; ${outcome}`,
  ];
  for (const status of ["rejected", "partial"] as const) {
    const groups = new Map<string, { count: number; example: string }>();
    for (const f of report.files) {
      if (f.status !== status) continue;
      const reason = f.reason ?? "no reason given";
      const group = groups.get(reason);
      if (group) group.count++;
      else groups.set(reason, { count: 1, example: f.fileName });
    }
    if (groups.size === 0) continue;
    const sorted = [...groups].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
    lines.push(`${status === "rejected" ? "rejected" : "partly read"}, by reason:`);
    for (const [reason, g] of sorted.slice(0, REASONS_SHOWN)) lines.push(`  ${n(g.count)} × ${reason}  (e.g. ${g.example})`);
    const rest = sorted.slice(REASONS_SHOWN).reduce((sum, [, g]) => sum + g.count, 0);
    if (rest > 0) lines.push(`  ${n(rest)} more in ${sorted.length - REASONS_SHOWN} other reasons`);
  }
  const cases = caseCounts(runCases(report));
  if (cases) lines.push(`cases: ${cases}`);
  if (options.hint !== false && report.files.length > 0) lines.push("per file: mehir import --verbose (or --json)");
  return lines.join("\n");
}

/** A one-line progress bar for a terminal (rewritten in place with `\r`). */
export function progressLine(done: number, total: number, file: string, columns = 80): string {
  const barWidth = 24;
  const filled = total === 0 ? barWidth : Math.round((done / total) * barWidth);
  const bar = "█".repeat(filled) + "░".repeat(barWidth - filled);
  const counter = `${done}/${total}`;
  const name = file.split(/[\\/]/).pop() ?? file;
  const room = Math.max(0, columns - barWidth - counter.length - 5);
  return `\r${bar} ${counter}  ${cut(name, room).padEnd(room)}`;
}
