import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { presentsClusterSecret } from "./cluster-secret.ts";
import type { SnapshotStore } from "./snapshot-store.ts";

/** The primary's snapshot endpoints (internal: not in the public OpenAPI document). */
export const SNAPSHOT_LATEST_PATH = "/internal/cluster/snapshot";
export const snapshotFilePath = (version: number) => `${SNAPSHOT_LATEST_PATH}/${version}`;

/** How long a replica waits before asking again when the primary has no snapshot yet. */
const NO_SNAPSHOT_RETRY_S = 5;

/**
 * `Range: bytes=N-` (what a replica sends to resume a download): the first byte wanted, or null
 * for anything else (answered whole, as RFC 9110 allows).
 */
function resumeFrom(range: string | null, size: number): number | null {
  const match = range ? /^bytes=(\d{1,15})-$/.exec(range.trim()) : null;
  if (!match) return null;
  const start = Number(match[1]);
  return start > 0 && start < size ? start : null;
}

/**
 * A primary serves its snapshots to replicas: the newest manifest, and a snapshot's file,
 * streamed, with `Range: bytes=N-` to resume. Only requests bearing the cluster secret are
 * answered; any other gets the same 404 `not_found` as a path that does not exist, so the
 * endpoints do not show to anyone else.
 */
export function snapshotRoutes(store: SnapshotStore, secret: string) {
  const authorize = (request: Request) => {
    if (!presentsClusterSecret(request, secret)) throw new ApiError("not_found", "No such resource.");
  };
  return new Elysia({ name: "cluster.snapshots" })
    .get(SNAPSHOT_LATEST_PATH, ({ request, set }) => {
      authorize(request);
      const manifest = store.latest();
      if (!manifest) {
        throw new ApiError("data_not_ready", "No snapshot is published yet (the first import is under way).", { headers: { "retry-after": String(NO_SNAPSHOT_RETRY_S) } });
      }
      set.headers["cache-control"] = "no-store";
      return manifest;
    })
    .get(`${SNAPSHOT_LATEST_PATH}/:version`, ({ request, params }) => {
      authorize(request);
      const version = /^\d{1,15}$/.test(params.version) ? Number(params.version) : NaN;
      const manifest = Number.isFinite(version) ? store.manifest(version) : null;
      if (!manifest) throw new ApiError("not_found", "No such snapshot (it may have been pruned: ask for the newest again).");
      const file = Bun.file(store.filePath(version));
      const headers: Record<string, string> = {
        "content-type": "application/vnd.sqlite3",
        "accept-ranges": "bytes",
        "cache-control": "no-store",
        etag: `"${manifest.sha256}"`,
      };
      const start = resumeFrom(request.headers.get("range"), manifest.size);
      if (start === null) return new Response(file, { headers: { ...headers, "content-length": String(manifest.size) } });
      return new Response(file.slice(start, manifest.size), {
        status: 206,
        headers: { ...headers, "content-length": String(manifest.size - start), "content-range": `bytes ${start}-${manifest.size - 1}/${manifest.size}` },
      });
    });
}
