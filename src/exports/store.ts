import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MANIFEST_FILE } from "./tables.ts";
import type { Manifest } from "./write.ts";

/** The daily exports' folder in a data dir. */
export const EXPORTS_DIR = "exports";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TEMP_PREFIX = ".tmp-";
const OLD_PREFIX = ".old-";

/**
 * The daily exports on disk: `<data-dir>/exports/<YYYY-MM-DD>/` holding the gzipped CSVs and
 * `manifest.json`. An export is written into a hidden temporary folder and renamed into place
 * whole, so readers see a day's old export or its new one, never half of one.
 */
export class ExportStore {
  constructor(readonly root: string) {}

  /** A new temporary folder to write an export into. */
  temporary(): string {
    mkdirSync(this.root, { recursive: true });
    const dir = join(this.root, `${TEMP_PREFIX}${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
    mkdirSync(dir);
    return dir;
  }

  /** Moves a written export into place as its date's export, replacing an earlier one of the same date. */
  publish(dir: string, date: string): void {
    if (!DATE.test(date)) throw new Error(`exports: bad date ${date}`);
    const target = join(this.root, date);
    let old: string | null = null;
    if (existsSync(target)) {
      old = join(this.root, `${OLD_PREFIX}${date}-${crypto.randomUUID().slice(0, 8)}`);
      renameSync(target, old);
    }
    renameSync(dir, target);
    if (old) rmSync(old, { recursive: true, force: true });
  }

  /** The exports' manifests, newest date first (folders without a readable manifest are skipped). */
  list(): Manifest[] {
    if (!existsSync(this.root)) return [];
    const out: Manifest[] = [];
    for (const name of readdirSync(this.root).filter((n) => DATE.test(n)).sort().reverse()) {
      const manifest = this.manifest(name);
      if (manifest) out.push(manifest);
    }
    return out;
  }

  /** A date's manifest, or null when there is no export of that date. */
  manifest(date: string): Manifest | null {
    if (!DATE.test(date)) return null;
    try {
      return JSON.parse(readFileSync(join(this.root, date, MANIFEST_FILE), "utf8")) as Manifest;
    } catch {
      return null;
    }
  }

  /** The path of a file of a date's export, or null when the export or the file does not exist. */
  filePath(date: string, file: string): string | null {
    const manifest = this.manifest(date);
    if (!manifest) return null;
    // Only names the manifest lists (and the manifest itself): never a path from the request.
    if (file !== MANIFEST_FILE && !manifest.files.some((f) => f.name === file)) return null;
    return join(this.root, date, file);
  }

  /**
   * Deletes exports older than `keepDays` days before `today` (an Israel date: with 30, the
   * exports of the last 30 dates remain), and temporary folders left by an interrupted run (their
   * process gone; another server's export under way on the same data dir is left alone).
   */
  prune(keepDays: number, today: string): string[] {
    if (!existsSync(this.root)) return [];
    const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - (keepDays - 1) * 86_400_000).toISOString().slice(0, 10);
    const removed: string[] = [];
    for (const name of readdirSync(this.root)) {
      const stale = (DATE.test(name) && name < oldest) || name.startsWith(OLD_PREFIX) || (name.startsWith(TEMP_PREFIX) && !ownerRuns(name));
      if (!stale) continue;
      rmSync(join(this.root, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }
}

/**
 * Whether the process named in a temporary folder (`.tmp-<pid>-…`) still runs: its export may be
 * under way (this process's, or another server's on the same data dir), so the folder is kept.
 */
function ownerRuns(name: string): boolean {
  const pid = Number(name.slice(TEMP_PREFIX.length).split("-", 1)[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
