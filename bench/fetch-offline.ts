/**
 * `mehir fetch` with no network, timed: the real registry (every active chain) in a network
 * namespace with no interface up (`unshare -rn`: nothing leaves the machine, not even DNS), or,
 * where unprivileged namespaces are not allowed, with every portal pointed at names under
 * `.invalid` (MEHIR_SOURCES_FILE). Target: fails within 20 s, exit 1, one line per cause on
 * stdout, JSON logs on stderr.
 *
 *   bun bench/fetch-offline.ts [--runs 3] [--no-write]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flag, numberOption } from "./lib/args.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import { loadRegistry } from "../src/registry.ts";

const args = process.argv.slice(2);
const runs = numberOption(args, "runs", 3);
const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "mehir-fetch-offline-"));

/** Busy CPU seconds of the whole machine, from /proc/stat. */
function machineBusy(): number {
  const v = require("node:fs").readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number) as number[];
  return (v.reduce((a, b) => a + b, 0) - v[3]! - v[4]!) / 100;
}

const namespaces = Bun.which("unshare") !== null && Bun.spawnSync(["unshare", "-rn", "true"]).exitCode === 0;
let command: string[];
let how: string;
if (namespaces) {
  command = ["unshare", "-rn", process.execPath, MAIN, "fetch"];
  how = "the real registry, in a network namespace with no interface up (`unshare -rn`)";
} else {
  const overrides: Record<string, unknown> = {};
  for (const c of loadRegistry().chains) {
    overrides[c.slug] = { base_url: "https://portal.mehir-offline.invalid", fallback_url: null, extra_portals: (c.extra_portals ?? []).map(() => ({ base_url: "https://mirror.mehir-offline.invalid" })) };
  }
  writeFileSync(join(dir, "sources.json"), JSON.stringify(overrides));
  command = [process.execPath, MAIN, "fetch", "--sources-file", join(dir, "sources.json")];
  how = "every portal pointed at names under `.invalid` (no unprivileged network namespaces here)";
}

try {
  const rows: string[][] = [];
  let worst = 0;
  let lastOut = "";
  for (let i = 0; i < runs; i++) {
    const busy0 = machineBusy();
    const started = performance.now();
    const proc = Bun.spawnSync([...command, "--data-dir", join(dir, `data-${i}`)], { stdout: "pipe", stderr: "pipe", env: { ...process.env, HTTPS_PROXY: "", HTTP_PROXY: "", https_proxy: "", http_proxy: "" } });
    const seconds = (performance.now() - started) / 1000;
    const busy = (machineBusy() - busy0) / seconds;
    const out = proc.stdout.toString();
    const err = proc.stderr.toString().trim().split("\n").filter(Boolean);
    const jsonOnStdout = out.split("\n").filter((l) => l.trimStart().startsWith("{")).length;
    const causes = out.split("\n").filter((l) => /^ {2}(cannot|no answer)/.test(l)).length;
    worst = Math.max(worst, seconds);
    lastOut = out;
    rows.push([String(i + 1), seconds.toFixed(2), String(proc.exitCode), String(causes), String(jsonOnStdout), String(err.length), busy.toFixed(1)]);
  }
  const tail = lastOut.trimEnd().split("\n").slice(-2).map((l) => (l.length > 220 ? l.slice(0, 220) + "…" : l));
  const body = [
    machineLine(`${how}; ${runs} runs`),
    "",
    table(["run", "wall s (spawn → exit)", "exit", "cause lines", "JSON lines on stdout", "log lines on stderr", "machine busy, all processes (of 2 cores)"], rows),
    "",
    "The report's last lines:",
    "",
    "```",
    ...tail,
    "```",
    "",
    `Target (fails within 20 s, exit status 1): **${worst <= 20 && rows.every((r) => r[2] === "1" && r[4] === "0") ? "met" : "not met"}** (slowest ${worst.toFixed(2)} s). Before this change the same run took 86 s and mixed ~90 JSON lines into its report (issue 23).`,
  ].join("\n");
  console.log(body);
  if (!flag(args, "no-write")) writeSection("Fetch with no network", body);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
