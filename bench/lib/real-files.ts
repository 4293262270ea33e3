/**
 * A real-format import workload: the PriceFull files chains really published (in
 * ../shared/samples/real/, never copied into the repository) replicated over stores as the chains
 * publish them — the same bytes (dialect, BOM, line ends, encoding) with the store's id in the
 * file name and in `<StoreId>`, gzip-compressed. Synthetic files are leaner per item (~300 bytes
 * of XML against ~815), so rows/s alone flatters the importer; this workload reports MB/s of XML.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";

export const REAL_SAMPLES = resolve(import.meta.dir, "..", "..", "..", "shared", "samples", "real");

/** The published PriceFull files used, by name (see SOURCES.md there): Bina (Maayan 2000) and Cerberus (Super Cofix). */
const PRICE_FULLS = ["PriceFull7290058159628-001-202211021214", "PriceFull7291056200008-299-202211020010"];

export interface RealDay {
  dir: string;
  paths: string[];
  /** Items (price rows) in all files. */
  items: number;
  /** Uncompressed XML bytes of all files. */
  xmlBytes: number;
  /** Compressed bytes on disk. */
  gzBytes: number;
  /** The sample files replicated, with their dialect. */
  samples: string[];
}

/** Why the workload cannot run here, or null. */
export function realSamplesMissing(): string | null {
  const missing = PRICE_FULLS.filter((name) => !existsSync(join(REAL_SAMPLES, name)));
  return missing.length ? `the published samples are absent (${REAL_SAMPLES}: ${missing.join(", ")})` : null;
}

/**
 * Writes `stores` gzip files into `dir` (reused when already there for the same count): store i
 * gets sample i mod 2 with its store id replaced by 1000 + i.
 */
export function writeRealDay(dir: string, stores: number): RealDay {
  const marker = join(dir, ".done.json");
  if (existsSync(marker)) {
    const done = JSON.parse(readFileSync(marker, "utf8")) as RealDay & { stores: number };
    if (done.stores === stores) return done;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const samples = PRICE_FULLS.map((name) => {
    const text = readFileSync(join(REAL_SAMPLES, name), "latin1"); // bytes as they are; only ASCII is rewritten
    const items = (text.match(/<\/Item>/g) ?? []).length;
    const [, chain, , time] = /^PriceFull(\d+)-(\d+)-(\d+)$/.exec(name)!;
    return { name, text, items, chain: chain!, time: time! };
  });
  const day: RealDay = { dir, paths: [], items: 0, xmlBytes: 0, gzBytes: 0, samples: PRICE_FULLS };
  for (let i = 0; i < stores; i++) {
    const sample = samples[i % samples.length]!;
    const store = String(1000 + i);
    const xml = Buffer.from(sample.text.replace(/<StoreId>\s*\d+\s*<\/StoreId>/i, `<StoreId>${store}</StoreId>`), "latin1");
    const gz = gzipSync(xml, { level: 6 });
    const path = join(dir, `PriceFull${sample.chain}-${store}-${sample.time}.gz`);
    writeFileSync(path, gz);
    day.paths.push(path);
    day.items += sample.items;
    day.xmlBytes += xml.length;
    day.gzBytes += gz.length;
  }
  writeFileSync(marker, JSON.stringify({ ...day, stores }));
  return day;
}
