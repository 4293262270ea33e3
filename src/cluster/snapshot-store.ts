import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";

/** The snapshots' folder in a primary's data dir (and a replica's copies of them). */
export const SNAPSHOTS_DIR = "snapshots";

/** What a snapshot is: one immutable, consistent copy of the price database at a data version. */
export const SnapshotManifestSchema = z.object({
  data_version: z.number().int().min(1),
  data_updated_at: z.string().nullable(),
  source: z.string(),
  /** Bytes of the database file. */
  size: z.number().int().min(1),
  /** Lowercase hex SHA-256 of the database file. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.string(),
});

export type SnapshotManifest = z.infer<typeof SnapshotManifestSchema>;

const FILE = /^prices-v(\d+)\.sqlite$/;
const TEMP_PREFIX = ".tmp-";

/**
 * Snapshots on disk: `prices-v<version>.sqlite` with `prices-v<version>.json` beside it (the
 * manifest). A snapshot is written under a hidden temporary name and renamed into place before
 * its manifest is, so a listed manifest always names a complete file.
 */
export class SnapshotStore {
  constructor(readonly root: string) {}

  /** A new temporary path to write a database file into (same folder: the rename is atomic). */
  temporary(): string {
    mkdirSync(this.root, { recursive: true });
    return join(this.root, `${TEMP_PREFIX}${process.pid}-${crypto.randomUUID().slice(0, 8)}.sqlite`);
  }

  filePath(version: number): string {
    return join(this.root, `prices-v${version}.sqlite`);
  }

  /** Moves a written and checked file into place with its manifest (the manifest last). */
  publish(temporaryFile: string, manifest: SnapshotManifest): void {
    renameSync(temporaryFile, this.filePath(manifest.data_version));
    const manifestPath = join(this.root, `prices-v${manifest.data_version}.json`);
    const temporaryManifest = `${temporaryFile}.json`;
    writeFileSync(temporaryManifest, JSON.stringify(manifest, null, 2) + "\n");
    renameSync(temporaryManifest, manifestPath);
  }

  /** The manifests on disk, newest data version first (unreadable ones skipped). */
  list(): SnapshotManifest[] {
    if (!existsSync(this.root)) return [];
    const versions = readdirSync(this.root)
      .map((name) => FILE.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => b - a);
    const out: SnapshotManifest[] = [];
    for (const version of versions) {
      const manifest = this.manifest(version);
      if (manifest) out.push(manifest);
    }
    return out;
  }

  /** The newest snapshot's manifest, or null when there is none. */
  latest(): SnapshotManifest | null {
    return this.list()[0] ?? null;
  }

  /** A version's manifest, or null when that snapshot is not (completely) on disk. */
  manifest(version: number): SnapshotManifest | null {
    try {
      const parsed = SnapshotManifestSchema.safeParse(JSON.parse(readFileSync(join(this.root, `prices-v${version}.json`), "utf8")));
      return parsed.success && parsed.data.data_version === version && existsSync(this.filePath(version)) ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Deletes all but the newest `keep` snapshots and any temporary file left by an interrupted run. */
  prune(keep: number): number[] {
    if (!existsSync(this.root)) return [];
    for (const name of readdirSync(this.root)) if (name.startsWith(TEMP_PREFIX)) rmSync(join(this.root, name), { force: true });
    const removed: number[] = [];
    for (const manifest of this.list().slice(keep)) {
      this.remove(manifest.data_version);
      removed.push(manifest.data_version);
    }
    return removed;
  }

  /** Deletes one snapshot (its manifest first, so it is never listed without its file). */
  remove(version: number): void {
    rmSync(join(this.root, `prices-v${version}.json`), { force: true });
    rmSync(this.filePath(version), { force: true });
  }
}
