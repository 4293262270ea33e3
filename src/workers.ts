/**
 * Where the worker threads' entrypoints are, from `bun src/main.ts` and from the compiled binary.
 * The binary embeds each of them as an extra entrypoint (scripts/build.ts reads this list) under
 * its path below src/, and finds them by that relative path only: `new URL(…, import.meta.url)`
 * there points at the build machine's source tree (import.meta.url is fixed at build time), so a
 * binary copied elsewhere could not start its workers.
 */
export const WORKER_ENTRYPOINTS = [
  "ingest/run/import-worker.ts",
  "ingest/parse/parse-worker.ts",
  "demo/generate-worker.ts",
  "exports/export-worker.ts",
  "alerts/evaluation-worker.ts",
  "alerts/delivery-thread.ts",
  "cluster/snapshot-worker.ts",
  "cluster/snapshot-check-worker.ts",
  "db/integrity-check-worker.ts",
  "modules/price-index/compute-worker.ts",
  "search/rebuild-worker.ts",
] as const;

export type WorkerEntrypoint = (typeof WORKER_ENTRYPOINTS)[number];

/** Running as the compiled binary (its modules live in Bun's embedded file system). */
const compiled = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(Bun.main);

/**
 * The specifier to start a worker with.
 * @example new Worker(workerSpecifier("ingest/parse/parse-worker.ts"))
 */
export function workerSpecifier(entrypoint: WorkerEntrypoint): string {
  return compiled ? `./${entrypoint}` : new URL(`./${entrypoint}`, import.meta.url).href;
}
