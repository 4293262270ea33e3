import { readdir, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { sniffCompression } from "../files/compression.ts";
import { FileRejectedError } from "../files/rejected.ts";
import { readZipEntries } from "../files/zip.ts";
import { expandZipArchive, priceEntries } from "../files/zip-archive.ts";

export interface FoundFile {
  path: string;
  size: number;
  /** Where the file came from when that is not `path`: `day.zip:entry.xml` for a zip's entry. */
  source?: string;
}

export interface Collected {
  files: FoundFile[];
  /** Paths given that do not exist or cannot be read, and archives and archive entries that cannot be read. */
  missing: { path: string; reason: string }[];
  /** Folders holding the entries of expanded zip archives; the caller removes them after the run. */
  temporary: string[];
}

/**
 * How much the zip archives of one run may write out to the temporary folder (settings
 * MEHIR_IMPORT_MAX_ENTRY_BYTES, _ARCHIVE_BYTES, _RUN_BYTES): a real hypermarket's PriceFull is
 * tens of MB of XML, a chain's day a few GB.
 */
export interface ArchiveLimits {
  /** One entry, inflated. */
  maxEntryBytes: number;
  /** All entries of one archive together. */
  maxArchiveBytes: number;
  /** All archives of the run together. */
  maxRunBytes: number;
}

/** The limits in a run's settings. */
export function archiveLimitsOf(settings: { importMaxEntryBytes: number; importMaxArchiveBytes: number; importMaxRunBytes: number }): ArchiveLimits {
  return { maxEntryBytes: settings.importMaxEntryBytes, maxArchiveBytes: settings.importMaxArchiveBytes, maxRunBytes: settings.importMaxRunBytes };
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxEntryBytes: 256 * 2 ** 20, maxArchiveBytes: 4 * 2 ** 30, maxRunBytes: 8 * 2 ** 30 };

export interface CollectOptions extends ArchiveLimits {
  /** Ceiling on a file's size; a larger `.zip` is not opened here (the importer rejects it). */
  maxBytes: number;
  /** Where expanded archives go; default the system temp folder. */
  tempDir?: string;
}

/**
 * Expands the given paths into files: folders recursively (hidden entries such as `.DS_Store`
 * skipped; a folder reached twice through a symbolic link is read once, so a link to a parent
 * cannot loop), files as given whatever their name or extension, and a `.zip` holding several
 * files (a day's files zipped together) into its entries, written to a temporary folder within
 * the ArchiveLimits. What cannot be read — a path, a folder, an archive, an entry — is listed in
 * `missing` and the rest collected. Should anything else fail, the temporary folders made so
 * far are removed before the error goes on.
 * @example await collectFiles(["./downloads", "PriceFull7290027600007-001-202401010300.gz"])
 */
export async function collectFiles(paths: string[], options: Partial<CollectOptions> = {}): Promise<Collected> {
  const settings: CollectOptions = { ...DEFAULT_ARCHIVE_LIMITS, maxBytes: 256 * 2 ** 20, ...options };
  const out: Collected = { files: [], missing: [], temporary: [] };
  const run = { left: settings.maxRunBytes, max: settings.maxRunBytes };
  const folders = new Set<string>();
  const unreadable = (path: string, error: unknown) =>
    out.missing.push({ path, reason: (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : (error as Error).message });
  const visit = async (path: string, explicit: boolean): Promise<void> => {
    if (!explicit && basename(path).startsWith(".")) return;
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      unreadable(path, error);
      return;
    }
    if (info.isDirectory()) {
      const id = `${info.dev}:${info.ino}`;
      if (folders.has(id)) return;
      folders.add(id);
      let entries;
      try {
        entries = (await readdir(path)).sort();
      } catch (error) {
        unreadable(path, error);
        return;
      }
      for (const entry of entries) await visit(join(path, entry), false);
    } else if (info.isFile()) {
      if (!(await expandArchive(path, info.size, settings, run, out))) out.files.push({ path, size: info.size });
    }
  };
  try {
    for (const path of paths) await visit(path, true);
  } catch (error) {
    for (const folder of out.temporary) await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return out;
}

/**
 * A `.zip` file with several price-file entries: its entries are written out and added instead
 * of the archive (true); an archive refused whole (entries sharing data, no temporary folder) is
 * reported in `missing` (true as well). Only names ending in `.zip` are opened here, so an
 * ordinary run reads no file twice; a zip under another name (Bina's `.gz`) holds one file and
 * is read in place.
 */
async function expandArchive(path: string, size: number, settings: CollectOptions, run: { left: number; max: number }, out: Collected): Promise<boolean> {
  if (!/\.zip$/i.test(path) || size > settings.maxBytes) return false;
  let bytes: Uint8Array;
  try {
    bytes = await Bun.file(path).bytes();
  } catch {
    return false; // the importer reports a file it cannot read
  }
  if (sniffCompression(bytes) !== "zip") return false;
  try {
    if (priceEntries(readZipEntries(bytes)).length < 2) return false;
  } catch (error) {
    if (error instanceof FileRejectedError) return false; // the importer reports the damaged archive
    throw error;
  }
  try {
    const expanded = await expandZipArchive(bytes, path, { maxEntryBytes: settings.maxEntryBytes, maxArchiveBytes: settings.maxArchiveBytes, run, parent: settings.tempDir });
    out.temporary.push(expanded.folder);
    out.files.push(...expanded.files);
    for (const r of expanded.rejected) out.missing.push({ path: r.source, reason: r.reason });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    out.missing.push({ path, reason: error instanceof FileRejectedError ? error.message : `archive not expanded: no temporary folder (${code ?? (error as Error).message})` });
  }
  return true;
}
