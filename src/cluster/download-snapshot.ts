import type { Database } from "bun:sqlite";
import { open, rm, stat } from "node:fs/promises";
import { clusterAuthorization } from "./cluster-secret.ts";
import { checkSnapshotOffThread } from "./snapshot-check.ts";
import { openSnapshot, sha256File } from "./snapshot-file.ts";
import { snapshotFilePath } from "./snapshot-routes.ts";
import { SnapshotManifestSchema, type SnapshotManifest, type SnapshotStore } from "./snapshot-store.ts";

/** The largest snapshot a replica accepts (a manifest announcing more is refused before any download). */
export const MAX_SNAPSHOT_BYTES = 16 * 1024 ** 3;

export interface PrimaryEndpoint {
  /** The primary's base URL (MEHIR_PRIMARY_URL). */
  url: string;
  /** MEHIR_CLUSTER_SECRET. */
  secret: string;
}

export class SnapshotRefused extends Error {
  override name = "SnapshotRefused";
}

/** The primary's newest snapshot manifest, or null when it has none yet. Throws when unreachable or refused. */
export async function fetchLatestManifest(primary: PrimaryEndpoint, timeoutMs = 10_000): Promise<SnapshotManifest | null> {
  const response = await fetch(new URL("/internal/cluster/snapshot", primary.url), { headers: clusterAuthorization(primary.secret), signal: AbortSignal.timeout(timeoutMs) });
  if (response.status === 503) {
    await response.body?.cancel();
    return null;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`primary answered ${response.status} for the snapshot manifest${response.status === 404 ? " (wrong cluster secret, or not a primary)" : ""}`);
  }
  const parsed = SnapshotManifestSchema.safeParse(await response.json());
  if (!parsed.success) throw new SnapshotRefused("the primary's manifest is malformed");
  return parsed.data;
}

export interface DownloadOptions {
  primary: PrimaryEndpoint;
  manifest: SnapshotManifest;
  /** The replica's own snapshot folder. */
  store: SnapshotStore;
  /** Attempts; each after the first resumes where the previous stopped (`Range: bytes=N-`). */
  attempts?: number;
  /** Per attempt. */
  timeoutMs?: number;
  maxBytes?: number;
  /** Before a retry (tests pass a shorter one). */
  retryDelayMs?: number;
  /** How long the probe queries may take (default PROBE_BUDGET_MS of snapshot-probes.ts). */
  probeBudgetMs?: number;
}

/**
 * Downloads a snapshot into a temporary file, never past the manifest's size (and never one
 * announcing more than `maxBytes`), resuming after a broken connection; then checks its size,
 * SHA-256, and in a worker thread its schema, `PRAGMA quick_check` and the API's probe queries
 * (snapshot-check.ts), and publishes it in the replica's store. Returns it opened
 * read-only. A file failing a check is deleted and SnapshotRefused thrown: the caller keeps
 * serving what it served.
 */
export async function downloadSnapshot(options: DownloadOptions): Promise<Database> {
  const { manifest, store } = options;
  const maxBytes = options.maxBytes ?? MAX_SNAPSHOT_BYTES;
  if (manifest.size > maxBytes) throw new SnapshotRefused(`snapshot v${manifest.data_version} is ${manifest.size} bytes, over the limit of ${maxBytes}`);
  const temporary = store.temporary();
  try {
    const attempts = options.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        await fetchInto(temporary, options);
        break;
      } catch (error) {
        if (error instanceof SnapshotRefused || attempt >= attempts) throw error;
        await Bun.sleep((options.retryDelayMs ?? 1000) * attempt);
      }
    }
    const size = (await stat(temporary)).size;
    if (size !== manifest.size) throw new SnapshotRefused(`snapshot v${manifest.data_version}: got ${size} bytes, the manifest says ${manifest.size}`);
    const sha256 = await sha256File(temporary);
    if (sha256 !== manifest.sha256) throw new SnapshotRefused(`snapshot v${manifest.data_version}: SHA-256 mismatch`);
    try {
      await checkSnapshotOffThread({ path: temporary, expectedVersion: manifest.data_version, probeBudgetMs: options.probeBudgetMs });
    } catch (error) {
      throw new SnapshotRefused(`snapshot v${manifest.data_version}: ${(error as Error).message}`);
    }
    store.publish(temporary, manifest);
    return openSnapshot(store.filePath(manifest.data_version));
  } finally {
    await rm(temporary, { force: true });
  }
}

/** One attempt: appends from where the file ends (a fresh file starts at 0). */
async function fetchInto(path: string, options: DownloadOptions): Promise<void> {
  const { manifest, primary } = options;
  const have = await stat(path).then((s) => s.size, () => 0);
  if (have === manifest.size) return;
  const headers: Record<string, string> = clusterAuthorization(primary.secret);
  if (have > 0) headers.range = `bytes=${have}-`;
  const response = await fetch(new URL(snapshotFilePath(manifest.data_version), primary.url), { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 600_000) });
  if (response.status === 404) {
    await response.body?.cancel();
    throw new SnapshotRefused(`snapshot v${manifest.data_version} is gone from the primary`);
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    throw new Error(`primary answered ${response.status} for snapshot v${manifest.data_version}`);
  }
  // A whole answer to a range request starts over.
  let written = response.status === 206 ? have : 0;
  const file = await open(path, response.status === 206 ? "a" : "w");
  try {
    const reader = response.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const chunk = next.value;
      written += chunk.byteLength;
      if (written > manifest.size) {
        await reader.cancel();
        throw new SnapshotRefused(`snapshot v${manifest.data_version}: more bytes than the manifest's ${manifest.size}`);
      }
      await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  if (written !== manifest.size) throw new Error(`snapshot v${manifest.data_version}: connection ended after ${written} of ${manifest.size} bytes`);
}
