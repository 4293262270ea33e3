import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { sniffCompression } from "./files/compression.ts";
import { FileRejectedError } from "./files/rejected.ts";
import { readZipEntries } from "./files/zip.ts";
import { expandZipArchive, priceEntries } from "./files/zip-archive.ts";

export interface FoundFile {
  path: string;
  size: number;
  /** Where the file came from when that is not `path`: `day.zip:entry.xml` for a zip's entry. */
  source?: string;
}

export interface Collected {
  files: FoundFile[];
  /** Paths given that do not exist or cannot be read, and archive entries that cannot be read. */
  missing: { path: string; reason: string }[];
  /** Folders holding the entries of expanded zip archives; the caller removes them after the run. */
  temporary: string[];
}

export interface CollectOptions {
  /** Ceiling on a file's (and a zip entry's) size; larger zips are left to the importer to reject. */
  maxBytes: number;
  /** Ceiling on all entries of one zip archive together. */
  maxArchiveBytes: number;
  /** Where expanded archives go; default the system temp folder. */
  tempDir?: string;
}

const DEFAULTS: CollectOptions = { maxBytes: 256 * 2 ** 20, maxArchiveBytes: 8 * 2 ** 30 };

/**
 * Expands the given paths into files: folders recursively (hidden entries such as `.DS_Store`
 * skipped; a folder reached twice through a symbolic link is read once, so a link to a parent
 * cannot loop), files as given whatever their name or extension, and a `.zip` holding several
 * files (a day's files zipped together) into its entries, written to a temporary folder.
 * @example await collectFiles(["./downloads", "PriceFull7290027600007-001-202401010300.gz"])
 */
export async function collectFiles(paths: string[], options: Partial<CollectOptions> = {}): Promise<Collected> {
  const settings = { ...DEFAULTS, ...options };
  const out: Collected = { files: [], missing: [], temporary: [] };
  const folders = new Set<string>();
  const visit = async (path: string, explicit: boolean): Promise<void> => {
    if (!explicit && basename(path).startsWith(".")) return;
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      out.missing.push({ path, reason: (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : (error as Error).message });
      return;
    }
    if (info.isDirectory()) {
      const id = `${info.dev}:${info.ino}`;
      if (folders.has(id)) return;
      folders.add(id);
      const entries = (await readdir(path)).sort();
      for (const entry of entries) await visit(join(path, entry), false);
    } else if (info.isFile()) {
      if (!(await expandArchive(path, info.size, settings, out))) out.files.push({ path, size: info.size });
    }
  };
  for (const path of paths) await visit(path, true);
  return out;
}

/**
 * A `.zip` file with several price-file entries: its entries are written out and added instead
 * of the archive (true). Only names ending in `.zip` are opened here, so an ordinary run reads
 * no file twice; a zip under another name (Bina's `.gz`) holds one file and is read in place.
 */
async function expandArchive(path: string, size: number, settings: CollectOptions, out: Collected): Promise<boolean> {
  if (!/\.zip$/i.test(path) || size > settings.maxBytes) return false;
  const bytes = await Bun.file(path).bytes();
  if (sniffCompression(bytes) !== "zip") return false;
  try {
    if (priceEntries(readZipEntries(bytes)).length < 2) return false;
  } catch (error) {
    if (error instanceof FileRejectedError) return false; // the importer reports the damaged archive
    throw error;
  }
  const expanded = await expandZipArchive(bytes, path, { maxBytes: settings.maxBytes, maxTotalBytes: settings.maxArchiveBytes, parent: settings.tempDir });
  out.temporary.push(expanded.folder);
  out.files.push(...expanded.files);
  for (const r of expanded.rejected) out.missing.push({ path: r.source, reason: r.reason });
  return true;
}
