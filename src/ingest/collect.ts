import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";

export interface FoundFile {
  path: string;
  size: number;
}

export interface Collected {
  files: FoundFile[];
  /** Paths given that do not exist or cannot be read. */
  missing: { path: string; reason: string }[];
}

/**
 * Expands the given paths into files: folders recursively (hidden entries such as `.DS_Store`
 * skipped; a folder reached twice through a symbolic link is read once, so a link to a parent
 * cannot loop), files as given whatever their name or extension.
 * @example await collectFiles(["./downloads", "PriceFull7290027600007-001-202401010300.gz"])
 */
export async function collectFiles(paths: string[]): Promise<Collected> {
  const out: Collected = { files: [], missing: [] };
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
      out.files.push({ path, size: info.size });
    }
  };
  for (const path of paths) await visit(path, true);
  return out;
}
