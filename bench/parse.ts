/**
 * Parse speed of `readPriceFile` (gunzip → decode → XML → records, no SQLite) on synthetic
 * 3,500-item Cerberus PriceFull files, plus `gunzip` alone for scale.
 *
 *   bun bench/parse.ts [--files 40] [--items 3500]
 */
import { gunzipSync } from "node:zlib";
import { readPriceFile } from "../src/ingest/parse/read-file.ts";
import { syntheticPriceFull } from "../test/helpers/ingest/synthetic-pricefull.ts";
import { numberOption } from "./lib/args.ts";

const args = process.argv.slice(2);
const fileCount = numberOption(args, "files", 40);
const itemsPerFile = numberOption(args, "items", 3500);
const files = Array.from({ length: fileCount }, (_, k) => Bun.gzipSync(new TextEncoder().encode(syntheticPriceFull(itemsPerFile, k))));
const xmlBytes = gunzipSync(files[0]!).length;
console.log(`${fileCount} files × ${itemsPerFile} items, ${(xmlBytes / 1e6).toFixed(2)} MB XML / ${(files[0]!.length / 1e3).toFixed(0)} kB gz each`);

// CPU time as well as wall time: on a shared machine the wall clock also counts other processes.
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const best = { parse: Infinity, parseCpu: Infinity, gunzip: Infinity };
for (let round = 0; round < 5; round++) {
  const c = cpuMs();
  let t = performance.now();
  let rows = 0;
  for (const [k, bytes] of files.entries()) {
    const { parsed } = readPriceFile(bytes, `PriceFull7290058140886-013-20250${(k % 9) + 1}010300.gz`);
    if (parsed.kind === "prices") rows += parsed.items.length;
  }
  best.parse = Math.min(best.parse, performance.now() - t);
  best.parseCpu = Math.min(best.parseCpu, cpuMs() - c);
  t = performance.now();
  for (const bytes of files) gunzipSync(bytes);
  best.gunzip = Math.min(best.gunzip, performance.now() - t);
  if (rows !== fileCount * itemsPerFile) throw new Error(`expected ${fileCount * itemsPerFile} rows, got ${rows}`);
}
const rows = fileCount * itemsPerFile;
console.log(`readPriceFile: ${best.parse.toFixed(0)} ms wall = ${Math.round((rows / best.parse) * 1000).toLocaleString("en")} rows/s; ${best.parseCpu.toFixed(0)} ms CPU = ${Math.round((rows / best.parseCpu) * 1000).toLocaleString("en")} rows per CPU-second (best of 5)`);
console.log(`gunzip alone:  ${best.gunzip.toFixed(0)} ms (${(best.parse / best.gunzip).toFixed(1)}× faster than the parse)`);
console.log(`peak RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
