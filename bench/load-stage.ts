/**
 * The importing thread's load stage alone (SQLite writes, product identity, the run's finish):
 * every file of a folder is read and parsed first (packed, as a parse worker hands it over), then
 * loaded into a fresh prices database through LoadSession, timed by phase. `threadMs` is this
 * thread's CPU time (/proc schedstat) — steadier than wall time on a shared machine; `cpuS` adds
 * the JIT and GC threads. One JSON line per run; nothing is written to bench/RESULTS.md.
 *
 *   bun bench/load-stage.ts DIR [--runs 3] [--idle]      (COUNTS=1: the files' summed counts; SIZES=1: file sizes before close)
 *
 * --idle: before each file the session's idle work is done, as the import does while it waits
 * for a file to be parsed (on two cores nearly always): the held history rows written in pieces.
 *
 * e.g. DIR = .bench-data/import-real-110/files (made by `bench/import.ts --real 110`), or a demo
 * written by generateDemo.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { openDatabase, PRICES_FILE } from "../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../src/db/price-schema.ts";
import { loadRegistry } from "../src/registry.ts";
import { collectFiles } from "../src/ingest/run/collect.ts";
import { orderFiles } from "../src/ingest/run/order.ts";
import { parseFileName } from "../src/ingest/files/name.ts";
import { parseOne } from "../src/ingest/parse/parse-file.ts";
import { unpackParsed } from "../src/ingest/parse/packed.ts";
import { ProductMemo } from "../src/ingest/dialects/product-facts.ts";
import { SpentBytes } from "../src/ingest/files/release.ts";
import { LoadSession } from "../src/ingest/load/session.ts";
import { resolveCity } from "../src/geo/geo.ts";
import { CATEGORIES_VERSION, classify } from "../src/search/categories.ts";
import { numberOption } from "./lib/args.ts";
import type { ParsedFile } from "../src/ingest/records.ts";
import type { PriceList } from "../src/ingest/load/price-rows.ts";

const args = process.argv.slice(2);
const dir = args[0]!;
const runs = numberOption(args, "runs", 3);
const idle = args.includes("--idle");
const registry = loadRegistry();
/** This thread's CPU time in ms (schedstat: ns on a CPU), not the JIT's or GC helpers'. */
const threadCpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

async function parseAll(folder: string) {
  const { files } = await collectFiles([folder], { maxBytes: 2 ** 28, maxArchiveBytes: 2 ** 33 });
  const ordered = orderFiles(files, parseFileName);
  const pack = { memo: new ProductMemo(), spent: new SpentBytes() };
  const out = [];
  for (let i = 0; i < ordered.length; i++) {
    const f = ordered[i]!;
    const reply = await parseOne({ id: i, path: f.path, fileName: f.fileName, maxBytes: 2 ** 28 }, pack);
    if (!reply.ok) throw new Error(reply.reason);
    out.push({ file: f, reply });
  }
  return out;
}

const parsed = await parseAll(dir);
let rows = 0;
for (const p of parsed) if (p.reply.ok && (p.reply.parsed as { kind: string }).kind === "prices-packed") rows += (p.reply.parsed as { count?: number }).count ?? 0;

for (let run = 0; run < runs; run++) {
  const data = mkdtempSync(join(tmpdir(), "load-stage-"));
  const db = openDatabase(join(data, PRICES_FILE), PRICE_MIGRATIONS);
  const inputs = parsed.map(({ file, reply }) => ({ file, reply, copy: reply.ok && reply.parsed.kind === "prices-packed" ? unpackParsed(structuredClone(reply.parsed)) : reply.ok ? reply.parsed : null }));
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const thread0 = threadCpu();
  const t0 = performance.now();
  const session = LoadSession.begin({ db, registry, classify, classifierVersion: CATEGORIES_VERSION, resolveCity });
  let priceRows = 0;
  const counts: Record<string, number> = {};
  for (const { file, reply, copy } of inputs) {
    if (!reply.ok) continue;
    if (idle) while (session.idle());
    const outcome = session.loadFile({ fileName: file.fileName, bytes: reply.bytes, name: reply.name, parsed: copy as ParsedFile | PriceList, partial: reply.partial, warnings: [] });
    if (outcome.type === "pricefull" || outcome.type === "price") priceRows += outcome.rows;
    for (const [k, v] of Object.entries(outcome.counts)) counts[`${outcome.type}.${k}`] = (counts[`${outcome.type}.${k}`] ?? 0) + (v as number);
  }
  const tLoad = performance.now();
  const threadLoad = threadCpu();
  session.finish("live");
  const t1 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const threadMs = threadCpu() - thread0;
  const sizes = [PRICES_FILE, PRICES_FILE + "-wal"].map((f) => { try { return Bun.file(join(data, f)).size; } catch { return -1; } });
  if (process.env.SIZES) console.log("sizes before close", sizes);
  db.close();
  const t2 = performance.now();
  rmSync(data, { recursive: true, force: true });
  if (run === 0 && process.env.COUNTS) console.log(counts);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  console.log(JSON.stringify({ run, priceRows, files: parsed.length, loadMs: Math.round(tLoad - t0), finishMs: Math.round(t1 - tLoad), closeMs: Math.round(t2 - t1), wallMs: Math.round(t1 - t0), threadMs: Math.round(threadMs), loadThreadMs: Math.round(threadLoad - thread0), finishThreadMs: Math.round(threadMs - (threadLoad - thread0)), cpuS: +cpuS.toFixed(3), usPerRow: +((cpuS * 1e6) / priceRows).toFixed(2), timings: session.timings, load: loadavg()[0].toFixed(1) }));
}
