import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FileRejectedError } from "./rejected.ts";
import { inflateZipEntry, readZipEntries, type ZipEntry } from "./zip.ts";

export interface ArchiveOptions {
  /** Ceiling on one entry's inflated size. */
  maxBytes: number;
  /** Ceiling on all entries together (the archive is written out to disk). */
  maxTotalBytes: number;
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
 * `.gz` that is a zip) needs none of this and is read in place by `decompress`. Entry sizes
 * and the total are capped (zip bombs); an entry that cannot be read is listed in `rejected`.
 *
 * @example
 * const out = await expandZipArchive(bytes, "day.zip", { maxBytes: 256 * 2 ** 20, maxTotalBytes: 8 * 2 ** 30 });
 * out.files.map((f) => f.source) // ["day.zip:Stores7290058140886-202611210100.xml", …]
 */
export async function expandZipArchive(bytes: Uint8Array, archivePath: string, options: ArchiveOptions): Promise<ExpandedArchive> {
  const entries = priceEntries(readZipEntries(bytes));
  const folder = await mkdtemp(join(options.parent ?? tmpdir(), "mehir-zip-"));
  const out: ExpandedArchive = { folder, files: [], rejected: [] };
  let total = 0;
  for (const entry of entries) {
    const source = `${archivePath}:${entry.name}`;
    const relative = safeRelative(entry.name);
    try {
      const left = options.maxTotalBytes - total;
      if (left <= 0) throw new FileRejectedError("too-large", `archive expands past the ${options.maxTotalBytes}-byte limit`);
      const { bytes: data } = inflateZipEntry(bytes, entry, Math.min(options.maxBytes, left));
      const path = join(folder, relative);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
      total += data.length;
      out.files.push({ path, size: data.length, source });
    } catch (error) {
      if (!(error instanceof FileRejectedError)) throw error;
      out.rejected.push({ source, reason: error.message });
    }
  }
  return out;
}
