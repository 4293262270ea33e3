import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FileRejectedError } from "./rejected.ts";
import { assertNoOverlap, inflateZipEntry, readZipEntries, type ZipEntry } from "./zip.ts";

export interface ArchiveOptions {
  /** Ceiling on one entry's inflated size (MEHIR_IMPORT_MAX_ENTRY_BYTES). */
  maxEntryBytes: number;
  /** Ceiling on all entries of this archive together (MEHIR_IMPORT_MAX_ARCHIVE_BYTES). */
  maxArchiveBytes: number;
  /**
   * Bytes all archives of the run may still write out (what MEHIR_IMPORT_MAX_RUN_BYTES leaves);
   * lowered by what this archive writes.
   */
  run: { left: number; max: number };
  /** Where the entries' folder is made; default the system temp folder. */
  parent?: string;
}

export interface ExpandedArchive {
  /** The folder holding the entries (the caller removes it after the run). */
  folder: string;
  files: { path: string; size: number; source: string }[];
  /** Entries that could not be written out: `source` is `archive.zip:entry`. */
  rejected: { source: string; reason: string }[];
}

/**
 * The entries of a zip archive that may be price files: no folders, no hidden files
 * (`.DS_Store`), no macOS `__MACOSX/` resource forks.
 * @example priceEntries(readZipEntries(bytes)).map((e) => e.name) // ["day/PriceFull7290…-001-202611210300.xml", …]
 */
export function priceEntries(entries: ZipEntry[]): ZipEntry[] {
  return entries.filter((e) => {
    const parts = e.name.split(/[\\/]/);
    const base = parts.at(-1) ?? "";
    return base !== "" && !base.startsWith(".") && !parts.includes("__MACOSX");
  });
}

/** An entry name as a relative path that stays inside the folder (`..`, `/`, drive letters dropped). */
function safeRelative(name: string): string {
  return name
    .split(/[\\/]/)
    .filter((part) => part !== "" && part !== "." && part !== ".." && !/^[A-Za-z]:$/.test(part))
    .join("/");
}

/**
 * Writes the price-file entries of a zip archive that holds several (a day's files zipped
 * together) to a new folder, so each imports as a file of its own; a single-entry zip (Bina's
 * `.gz` that is a zip) needs none of this and is read in place by `decompress`.
 *
 * What it writes is bounded per entry, per archive and per run (ArchiveOptions): an entry is
 * inflated with its ceiling, so no more than the bound is ever written. An archive whose entries
 * share compressed data (one small stream named many times: a disk-filling bomb) is refused
 * whole, before anything is written (FileRejectedError). An entry that cannot be inflated or
 * written (over a bound, corrupt, a name too long for the file system, a path that collides with
 * another entry's folder, a full disk) is listed in `rejected`; the other entries are written.
 * On an unexpected error the folder is removed before the error goes on.
 *
 * @example
 * const out = await expandZipArchive(bytes, "day.zip", { maxEntryBytes: 256 * 2 ** 20, maxArchiveBytes: 4 * 2 ** 30, run: { left: 8 * 2 ** 30, max: 8 * 2 ** 30 } });
 * out.files.map((f) => f.source) // ["day.zip:Stores7290058140886-202611210100.xml", …]
 */
export async function expandZipArchive(bytes: Uint8Array, archivePath: string, options: ArchiveOptions): Promise<ExpandedArchive> {
  const all = readZipEntries(bytes);
  assertNoOverlap(bytes, all);
  const entries = priceEntries(all);
  const folder = await mkdtemp(join(options.parent ?? tmpdir(), "mehir-zip-"));
  const out: ExpandedArchive = { folder, files: [], rejected: [] };
  try {
    let total = 0;
    for (const entry of entries) {
      const source = `${archivePath}:${entry.name}`;
      try {
        const data = inflateWithin(bytes, entry, entryLimit(options, total));
        const path = join(folder, safeRelative(entry.name));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, data);
        total += data.length;
        options.run.left -= data.length;
        out.files.push({ path, size: data.length, source });
      } catch (error) {
        // Any error is this entry's: the other entries (and the run's other files) go on.
        out.rejected.push({ source, reason: entryError(error) });
      }
    }
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return out;
}

/** What one entry may inflate to: its own bound, or less when the archive's or the run's is nearer. */
function entryLimit(options: ArchiveOptions, archiveTotal: number): { bytes: number; what: string | null } {
  const archiveLeft = options.maxArchiveBytes - archiveTotal;
  const runLeft = options.run.left;
  if (options.maxEntryBytes <= archiveLeft && options.maxEntryBytes <= runLeft) return { bytes: options.maxEntryBytes, what: null };
  return archiveLeft <= runLeft
    ? { bytes: archiveLeft, what: `the archive's ${options.maxArchiveBytes}-byte limit (MEHIR_IMPORT_MAX_ARCHIVE_BYTES)` }
    : { bytes: runLeft, what: `the run's ${options.run.max}-byte limit on expanded archives (MEHIR_IMPORT_MAX_RUN_BYTES)` };
}

function inflateWithin(bytes: Uint8Array, entry: ZipEntry, limit: { bytes: number; what: string | null }): Uint8Array {
  const tooLarge = () => new FileRejectedError("too-large", `zip entry ${entry.name} not written: it would pass ${limit.what}`);
  if (limit.bytes <= 0) throw tooLarge();
  try {
    return inflateZipEntry(bytes, entry, limit.bytes).bytes;
  } catch (error) {
    if (limit.what && error instanceof FileRejectedError && error.reason === "too-large") throw tooLarge();
    throw error;
  }
}

const WRITE_ERRORS: Record<string, string> = {
  ENAMETOOLONG: "its name is too long for the file system",
  EEXIST: "its path collides with another entry",
  ENOTDIR: "its path collides with another entry",
  EISDIR: "its path collides with another entry",
  ENOSPC: "no space left in the temporary folder",
  EDQUOT: "no space left in the temporary folder",
};

/** Why an entry was not written, for the run's report (no temporary paths). */
function entryError(error: unknown): string {
  if (error instanceof FileRejectedError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `could not be written out: ${WRITE_ERRORS[code] ?? "file system error"} (${code})` : `could not be written out: ${(error as Error).message}`;
}
