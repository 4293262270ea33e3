import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { resolve } from "node:path";

export const RESULTS_FILE = resolve(import.meta.dir, "..", "RESULTS.md");

const HEADER = `# Benchmark results

Figures recorded by the scripts in \`bench/\` (\`npm run bench\`; \`bun bench/run.ts --quick\` for a short run).
Each section is rewritten by the bench that owns it; absolute figures drift on shared machines, so every
bench also measures a baseline in the same run.
`;

/** One line describing where and when the figures were taken. */
export function machineLine(extra = ""): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `_${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC · ${cpus().length} × ${cpu} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · Bun ${Bun.version}${extra ? " · " + extra : ""}_`;
}

/**
 * Replaces the body of `## heading` in bench/RESULTS.md (up to the next `## `), or appends the
 * section. Other sections are left as they are.
 */
export function writeSection(heading: string, body: string): void {
  const text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, "utf8") : HEADER;
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  const section = [`## ${heading}`, "", body.trim(), ""];
  let next: string[];
  if (start < 0) {
    next = [...lines];
    while (next.length > 0 && next[next.length - 1] === "") next.pop();
    next.push("", ...section);
  } else {
    let end = start + 1;
    while (end < lines.length && !lines[end]!.startsWith("## ")) end++;
    next = [...lines.slice(0, start), ...section, ...lines.slice(end)];
  }
  writeFileSync(RESULTS_FILE, next.join("\n").replace(/\n*$/, "\n"));
}

/** A Markdown table. */
export function table(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
