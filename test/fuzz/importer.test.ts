import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { generateDemo } from "../../src/demo/generate.ts";
import { openDatabase } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import type { ImportReport } from "../../src/ingest/run/report.ts";
import { loadRegistry } from "../../src/registry.ts";
import { makeZip } from "../helpers/ingest/zip.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * Fuzz of the file importer with mutated real-format files. Seeds: the real published files of
 * test/fixtures/ingest (several chains, plain XML and gzip, NULL prices), and demo files of one
 * chain per publishing profile — every XML dialect (cerberus, bina, matrix, superpharm, modern),
 * every encoding (UTF-8, UTF-8 with BOM, UTF-16LE, windows-1255) and every container (gzip, zip
 * under a .gz name, plain, no extension). Each seed's XML is mutated (bit flips, truncation,
 * deleted/duplicated/inserted ranges, garbage field values, broken tags, deep nesting, entity
 * bombs, wrong encoding declarations, Unicode edges) and packed again in its own container; the
 * containers themselves are mutated too (damaged deflate streams, bad CRC, truncated archives,
 * lying sizes, gzip bombs, nested and multi-entry zips with hostile entry names).
 *
 * Asserted: the importer never throws or hangs, every file given gets a report (a multi-entry
 * zip: its entries), each report has a known status and a rejected file a reason, and the
 * database stays consistent (integrity_check, foreign_key_check). The same folder through the
 * CLI (`bun src/main.ts import --json`) exits 0 or 1 with a JSON report for every file.
 *
 * FUZZ_SEED=n repeats a run; the seed is printed when a run fails.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const MAIN = join(import.meta.dir, "../../src/main.ts");
const FIXTURES = join(import.meta.dir, "../fixtures/ingest");
/** One chain per (dialect, compression, encoding, extension) profile of the demo. */
const DEMO_CHAINS = ["shufersal", "rami-levy", "victory", "tiv-taam", "politzer", "super-pharm", "maayan-2000", "netiv-hahesed", "wolt-market", "zol-vebegadol"];
const MAX_FILE_BYTES = 4 * 2 ** 20;

type Container = "gzip" | "zip" | "none";
interface Seed {
  name: string;
  xml: Uint8Array;
  container: Container;
  /** The packed bytes as published. */
  packed: Uint8Array;
}

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}
const random = rng(SEED);

function unpack(data: Uint8Array): { xml: Uint8Array; container: Container } {
  if (data[0] === 0x1f && data[1] === 0x8b) return { xml: Bun.gunzipSync(data as Uint8Array<ArrayBuffer>), container: "gzip" };
  if (data[0] === 0x50 && data[1] === 0x4b) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const method = view.getUint16(8, true);
    const size = view.getUint32(18, true);
    const start = 30 + view.getUint16(26, true) + view.getUint16(28, true);
    const body = data.slice(start, start + size);
    return { xml: method === 0 ? body : Bun.inflateSync(body), container: "zip" };
  }
  return { xml: data, container: "none" };
}

function pack(xml: Uint8Array, container: Container, name: string): Uint8Array {
  if (container === "gzip") return gzipSync(xml);
  if (container === "zip") return makeZip([{ name: name.replace(/\.(gz|GZ)$/, "") + ".xml", data: xml }]);
  return xml;
}

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");
const fromLatin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const concat = (...parts: (Uint8Array | string)[]) => new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p)))));

const GARBAGE_VALUES = ["", "-1", "1e309", "NaN", "Infinity", "99999999999999999999999", "0x1F", "1,5", "12.345.67", "' OR 1=1 --", "</Item>", "<![CDATA[x]]>", "&amp;&lt;", "&bogus;", "\u202eevil", "ש\u05b8\u05b8\u05b8", "😀", "\u0000", "x".repeat(10_000), "2026-13-45T99:99:99", "00000000000000000000", "7290000000000 7290000000001"];
const ENTITY_BOMB =
  '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY x SYSTEM "file:///etc/passwd">]>';

/** Mutations of a file's XML bytes (before packing). */
const XML_MUTATIONS: Record<string, (xml: Uint8Array) => Uint8Array> = {
  flipBytes(xml) {
    const out = xml.slice();
    for (let i = 0, n = 1 + random.int(20); i < n && out.length; i++) out[random.int(out.length)] ^= 1 << random.int(8);
    return out;
  },
  truncate: (xml) => xml.slice(0, random.int(xml.length)),
  deleteRange(xml) {
    const at = random.int(xml.length);
    return concat(xml.slice(0, at), xml.slice(Math.min(xml.length, at + 1 + random.int(2000))));
  },
  duplicateRange(xml) {
    const at = random.int(xml.length);
    const range = xml.slice(at, at + 1 + random.int(3000));
    return concat(xml.slice(0, at), range, range, range, xml.slice(at));
  },
  insertJunk(xml) {
    const at = random.int(xml.length);
    const junk = new Uint8Array(1 + random.int(64)).map(() => random.pick([0x00, 0xff, 0xfe, 0xc0, 0xed, 0xa0, 0x80, 0x3c, 0x3e, 0x26, random.int(256)]));
    return concat(xml.slice(0, at), junk, xml.slice(at));
  },
  garbageValue(xml) {
    // Replace the text of a random element with a hostile value.
    const text = latin1(xml);
    const matches = [...text.matchAll(/>([^<>]{1,40})</g)];
    if (matches.length === 0) return xml;
    const m = random.pick(matches);
    const value = latin1(new TextEncoder().encode(random.pick(GARBAGE_VALUES)));
    return fromLatin1(text.slice(0, m.index! + 1) + value + text.slice(m.index! + 1 + m[1]!.length));
  },
  dropClosingTag(xml) {
    const text = latin1(xml);
    const matches = [...text.matchAll(/<\/[A-Za-z_][^>]*>/g)];
    if (matches.length === 0) return xml;
    const m = random.pick(matches);
    return fromLatin1(text.slice(0, m.index!) + text.slice(m.index! + m[0].length));
  },
  renameTags(xml) {
    const text = latin1(xml);
    const names = [...new Set([...text.matchAll(/<([A-Za-z_][\w.-]*)/g)].map((m) => m[1]!))];
    if (names.length === 0) return xml;
    const name = random.pick(names);
    return fromLatin1(text.replaceAll(`<${name}`, `<${name}X`).replaceAll(`</${name}>`, `</${name}X>`));
  },
  deepNesting(xml) {
    const text = latin1(xml);
    const at = text.indexOf(">", text.indexOf("<", text.indexOf("?>") + 1)) + 1;
    const depth = 20_000;
    return fromLatin1(text.slice(0, at) + "<a>".repeat(depth) + "</a>".repeat(depth) + text.slice(at));
  },
  entityBomb(xml) {
    const text = latin1(xml);
    const decl = text.indexOf("?>");
    const at = decl >= 0 ? decl + 2 : 0;
    const withRefs = text.replace(/>([^<>]{1,40})</, ">&f;&x;<");
    return fromLatin1(withRefs.slice(0, at) + ENTITY_BOMB + withRefs.slice(at));
  },
  wrongEncodingDeclaration(xml) {
    const text = latin1(xml);
    const encoding = random.pick(["UTF-16", "utf-32", "bogus-8", "windows-1255", "ISO-8859-8", "UTF-8", ""]);
    return fromLatin1(/encoding="[^"]*"/.test(text) ? text.replace(/encoding="[^"]*"/, `encoding="${encoding}"`) : `<?xml version="1.0" encoding="${encoding}"?>` + text);
  },
  repeatItems(xml) {
    // Many copies of one repeated element (duplicate rows, same keys).
    const text = latin1(xml);
    const m = text.match(/<(Item|Line|Promotion|Store|Product|Sale|Branch)\b[^>]*>[\s\S]*?<\/\1>/i);
    if (!m) return xml;
    return fromLatin1(text.slice(0, m.index!) + m[0].repeat(500) + text.slice(m.index!));
  },
  unicodeEdges(xml) {
    const text = latin1(xml);
    const edges = ["\xed\xa0\x80", "\xc0\xaf", "\xef\xbb\xbf", "\xe2\x80\xae", "\xf4\x90\x80\x80", "\xcc\x81\xcc\x81", "\xff\xfe", "\x00\x00"];
    let out = text;
    for (let i = 0; i < 5; i++) {
      const at = random.int(out.length);
      out = out.slice(0, at) + random.pick(edges) + out.slice(at);
    }
    return fromLatin1(out);
  },
  headerOnly(xml) {
    const text = latin1(xml);
    const cut = text.search(/<(Items|Lines|Promotions|Stores|Products|Sales|Branches)\b/i);
    return cut > 0 ? fromLatin1(text.slice(0, cut)) : xml.slice(0, 200);
  },
  empty: () => new Uint8Array(0),
  bomOnly: () => new Uint8Array([0xef, 0xbb, 0xbf]),
  notXml: () => concat("{\"items\":[1,2,3]}\n", new Uint8Array(300).map(() => random.int(256))),
};

/** Mutations of the packed bytes (the container itself). */
const CONTAINER_MUTATIONS: Record<string, (seed: Seed) => Uint8Array | null> = {
  flipPackedBytes(seed) {
    if (seed.container === "none") return null;
    const out = seed.packed.slice();
    // Past the header, inside the compressed stream or the trailer.
    for (let i = 0; i < 1 + random.int(6); i++) out[20 + random.int(Math.max(1, out.length - 20))] ^= 1 << random.int(8);
    return out;
  },
  truncatePacked: (seed) => (seed.container === "none" ? null : seed.packed.slice(0, 10 + random.int(Math.max(1, seed.packed.length - 10)))),
  badTrailer(seed) {
    if (seed.container !== "gzip") return null;
    const out = seed.packed.slice();
    out[out.length - 1] ^= 0xff; // ISIZE
    out[out.length - 6] ^= 0xff; // CRC
    return out;
  },
  lyingZipSizes(seed) {
    if (seed.container !== "zip") return null;
    const out = seed.packed.slice();
    const view = new DataView(out.buffer);
    view.setUint32(18, random.pick([0, 1, 0xffffffff, out.length * 10]), true);
    view.setUint32(22, random.pick([0, 1, 0xffffffff]), true);
    return out;
  },
  gzipOfGzip: (seed) => gzipSync(seed.packed),
  zipUnderWrongName: (seed) => makeZip([{ name: "x.xml", data: seed.xml, store: random.next() < 0.5 }]),
  gzipBomb: () => gzipSync(new Uint8Array(MAX_FILE_BYTES * 4)),
  zipBomb: () => makeZip([{ name: "bomb.xml", data: new Uint8Array(MAX_FILE_BYTES * 4) }]),
  zipNoEntries: () => makeZip([]),
  zipHostileEntryName: (seed) => makeZip([{ name: random.pick(["../../../../tmp/evil.xml", "/etc/passwd", "a\u0000b.xml", "C:\\x.xml", ""]), data: seed.xml }]),
  zipInZip: (seed) => makeZip([{ name: "inner.zip", data: makeZip([{ name: "x.xml", data: seed.xml }]) }]),
};

let root: string;
let seeds: Seed[] = [];
let inputs: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mehir-fuzz-import-"));
  // Real published files.
  const add = (name: string, packed: Uint8Array) => seeds.push({ name, packed, ...unpack(packed) });
  for (const dir of [FIXTURES, join(FIXTURES, "compressed")]) {
    for (const name of readdirSync(dir, { withFileTypes: true })) if (name.isFile()) add(name.name, new Uint8Array(readFileSync(join(dir, name.name))));
  }
  // Demo files of every publishing profile: a Stores file, a PriceFull, a Price delta and a PromoFull of each chain.
  const demo = join(root, "demo");
  await generateDemo({ registry: loadRegistry(), outDir: demo, seed: 3, now: new Date("2026-11-22T08:00:00Z"), scale: 0.01, months: 2, chains: DEMO_CHAINS, parallel: false });
  for (const slug of DEMO_CHAINS) {
    const names = readdirSync(join(demo, slug)).sort();
    for (const kind of [/^Stores/, /^PriceFull/, /^(NULL)?Price\d/, /^PromoFull/]) {
      const name = names.find((n) => kind.test(n));
      if (name) add(name, new Uint8Array(readFileSync(join(demo, slug, name))));
    }
  }

  // The mutated files: each in a folder of its own, under its real file name.
  const files = join(root, "files");
  let n = 0;
  const write = (name: string, bytes: Uint8Array) => {
    const dir = join(files, String(n++).padStart(5, "0"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), bytes);
    inputs.push(join(dir, name));
  };
  for (const seed of seeds) {
    for (const mutate of Object.values(XML_MUTATIONS)) write(seed.name, pack(mutate(seed.xml), seed.container, seed.name));
    // A few more random byte-level mutations per seed.
    for (let i = 0; i < 3; i++) write(seed.name, pack(XML_MUTATIONS[random.pick(["flipBytes", "truncate", "insertJunk", "garbageValue", "dropClosingTag"])]!(seed.xml), seed.container, seed.name));
    for (const mutate of Object.values(CONTAINER_MUTATIONS)) {
      const bytes = mutate(seed);
      if (bytes) write(seed.name, bytes);
    }
  }
  // A day's files zipped together, some entries mutated, some hostile names.
  for (let i = 0; i < 4; i++) {
    const entries = Array.from({ length: 3 + random.int(4) }, () => {
      const seed = random.pick(seeds);
      const mutate = random.pick(Object.values(XML_MUTATIONS));
      return { name: random.next() < 0.2 ? `../${seed.name}` : seed.name, data: random.next() < 0.5 ? mutate(seed.xml) : seed.packed };
    });
    write(`day-${i}.zip`, makeZip(entries));
  }
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every input has a report (an expanded zip: its entries, `archive.zip:entry`), each well-formed. */
function checkReports(report: ImportReport, given: string[], failures: string[]) {
  if (report.totals.files !== report.files.length) failures.push(`totals.files ${report.totals.files} ≠ ${report.files.length} reports`);
  for (const path of given) {
    if (!report.files.some((f) => f.path === path || f.path.startsWith(path + ":"))) failures.push(`no report for ${path}`);
  }
  for (const f of report.files) {
    if (!["ok", "partial", "rejected", "skipped"].includes(f.status)) failures.push(`${f.path}: status ${f.status}`);
    if (f.status === "rejected" && !(typeof f.reason === "string" && f.reason.length > 0)) failures.push(`${f.path}: rejected without a reason`);
    if (!(Number.isInteger(f.rows) && f.rows >= 0)) failures.push(`${f.path}: rows ${f.rows}`);
  }
}

function checkDatabase(db: Database, failures: string[]) {
  const integrity = db.query("PRAGMA integrity_check").get() as { integrity_check: string };
  if (integrity.integrity_check !== "ok") failures.push(`integrity_check: ${integrity.integrity_check}`);
  const fk = db.query("PRAGMA foreign_key_check").all();
  if (fk.length > 0) failures.push(`foreign_key_check: ${JSON.stringify(fk.slice(0, 3))}`);
}

describe(`importer fuzz (FUZZ_SEED=${SEED})`, () => {
  test("mutated real-format files of every dialect, encoding and container: no crash, a report for every file, a consistent database", async () => {
    expect(seeds.length).toBeGreaterThanOrEqual(50);
    // Every container and dialect family is among the seeds.
    expect(new Set(seeds.map((s) => s.container))).toEqual(new Set(["gzip", "zip", "none"]));
    expect(inputs.length).toBeGreaterThan(1000);

    const db = openDatabase(join(root, "prices.sqlite"), PRICE_MIGRATIONS);
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    try {
      // In batches (one import run each), so good and bad files of a run meet in one transaction.
      for (let i = 0; i < inputs.length; i += 60) {
        const batch = inputs.slice(i, i + 60);
        let report: ImportReport;
        try {
          report = await importPaths({ db, registry: loadRegistry(), paths: batch, origin: "cli", source: "live", maxFileBytes: MAX_FILE_BYTES, parseWorkers: 0 });
        } catch (error) {
          failures.push(`import of ${batch[0]}… threw: ${(error as Error).stack}`);
          continue;
        }
        checkReports(report, batch, failures);
        for (const f of report.files) statuses.set(f.status, (statuses.get(f.status) ?? 0) + 1);
        if (process.env.FUZZ_VERBOSE) for (const f of report.files) if (f.status !== "ok") console.error("REASON", f.status, String(f.reason).slice(0, 70));
        checkDatabase(db, failures);
        if (failures.length > 20) break;
      }
    } finally {
      db.close();
    }
    if (failures.length) console.error(`importer fuzz failed with FUZZ_SEED=${SEED}`);
    if (process.env.FUZZ_VERBOSE) console.error(seeds.length, inputs.length, [...statuses]);
    expect(failures.slice(0, 20)).toEqual([]);
    // The mutations were both survivable and fatal: some files load, many are refused.
    expect(statuses.get("rejected") ?? 0).toBeGreaterThan(100);
    expect((statuses.get("ok") ?? 0) + (statuses.get("partial") ?? 0)).toBeGreaterThan(100);
  }, 300_000);

  test("the same files through `mehir import --json`: exit 0 or 1, a report for every file, no crash", async () => {
    const dataDir = join(root, "cli-data");
    const sample = inputs.filter((_, i) => i % 4 === 0);
    const proc = Bun.spawn([process.execPath, MAIN, "import", ...sample, "--data-dir", dataDir, "--json"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, MEHIR_LOG_LEVEL: "error", MEHIR_IMPORT_PRIORITY: "normal" },
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0 && code !== 1) console.error(`FUZZ_SEED=${SEED}`, stderr.slice(0, 2000));
    expect([0, 1]).toContain(code);
    const report = JSON.parse(stdout) as ImportReport;
    const failures: string[] = [];
    checkReports(report, sample, failures);
    expect(failures.slice(0, 20)).toEqual([]);
    const db = new Database(join(dataDir, "prices.sqlite"), { readonly: true });
    try {
      checkDatabase(db, failures);
    } finally {
      db.close();
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
