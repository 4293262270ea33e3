import type { Database } from "bun:sqlite";
import { once } from "node:events";
import { join } from "node:path";
import { createGzip } from "node:zlib";
import { csvRow } from "./csv.ts";
import { EXPORT_TABLES, MANIFEST_FILE, type ExportTable } from "./tables.ts";
import { israelDate, toIsraelIso } from "../lib/time.ts";

/** One file of an export, as its manifest lists it. */
export interface ManifestFile {
  name: string;
  rows: number;
  /** Size of the gzipped file. */
  bytes: number;
  /** SHA-256 of the gzipped file (what a client downloads), hex. */
  sha256: string;
  columns: string[];
}

/** `manifest.json` of an export: which data it holds and each file's figures. */
export interface Manifest {
  /** Israel date of the data (its `data_updated_at`): the export's name. */
  date: string;
  data_version: number;
  data_updated_at: string;
  source: string;
  generated_at: string;
  files: ManifestFile[];
}

/** Text buffered before it is handed to gzip. */
const CHUNK_CHARS = 1 << 16;

/** Writes one table as a gzipped CSV with a header row; the file's row count, size and SHA-256. */
async function writeTable(db: Database, table: ExportTable, at: string, path: string): Promise<ManifestFile> {
  const gzip = createGzip({ level: 6 });
  const sink = Bun.file(path).writer();
  const hasher = new Bun.CryptoHasher("sha256");
  let bytes = 0;
  gzip.on("data", (chunk: Buffer) => {
    hasher.update(chunk);
    bytes += chunk.length;
    sink.write(chunk);
  });
  const ended = once(gzip, "end");
  let buffer = csvRow(table.columns.map((c) => c.name));
  let rows = 0;
  for (const row of table.rows(db, at)) {
    buffer += csvRow(row);
    rows++;
    if (buffer.length >= CHUNK_CHARS) {
      if (!gzip.write(buffer)) await once(gzip, "drain");
      buffer = "";
    }
  }
  gzip.end(buffer);
  await ended;
  await sink.end();
  return { name: table.file, rows, bytes, sha256: hasher.digest("hex"), columns: table.columns.map((c) => c.name) };
}

/**
 * Writes an export of the data into `dir` (an existing, empty folder): every table of
 * EXPORT_TABLES as a gzipped CSV and `manifest.json`. Everything is read in one read
 * transaction: one consistent snapshot of the data, even while an import commits meanwhile (in
 * WAL mode a reader neither waits for nor blocks the writer). Returns the manifest, or null
 * when nothing was imported yet.
 *
 * @example const manifest = await writeExport(readOnlyDb, "/tmp/export", new Date())
 */
export async function writeExport(db: Database, dir: string, now: Date): Promise<Manifest | null> {
  db.run("BEGIN");
  try {
    const meta = Object.fromEntries(
      (db.query("SELECT key, value FROM meta WHERE key IN ('data_version', 'data_updated_at', 'source')").all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );
    if (!meta.data_version || !meta.data_updated_at) return null;
    const at = toIsraelIso(now);
    const files: ManifestFile[] = [];
    for (const table of EXPORT_TABLES) files.push(await writeTable(db, table, at, join(dir, table.file)));
    const manifest: Manifest = {
      date: israelDate(new Date(meta.data_updated_at)),
      data_version: Number(meta.data_version),
      data_updated_at: meta.data_updated_at,
      source: meta.source ?? "none",
      generated_at: at,
      files,
    };
    await Bun.write(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + "\n");
    return manifest;
  } finally {
    db.run("COMMIT");
  }
}
