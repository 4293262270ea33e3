import type { DataSet } from "../../deps.ts";
import type { Answered } from "../../serving/answer-cache.ts";
import { israelDate } from "../../lib/time.ts";
import { log } from "../../lib/log.ts";
import { workerSpecifier } from "../../workers.ts";
import type { ImportPriority } from "../../ingest/run/import-priority.ts";
import { cachedPriceIndex, priceIndexAnswerKey, priceIndexScopeKey, type FullAnswer, type IndexScope, type PriceIndexAnswer } from "./service.ts";

/** What the worker is asked: a scope of the database file at `path`, as of `now` (ms). */
export interface IndexJob {
  path: string;
  scope: IndexScope;
  withHistory: boolean;
  now: number;
  /** The worker thread's CPU priority (as an import's): background computations run at the imports' (warm.ts). */
  priority: ImportPriority;
}

/** What it answers: the computation and the data version it read, or why it failed. */
export type IndexJobResult = { kind: "done"; version: number; full: FullAnswer } | { kind: "failed"; message: string };

/** Worker runs at most, when imports commit while it computes (its version is then not the one served). */
const ATTEMPTS = 3;

/** Computations under way, per data set's cache and data version + scope: one worker for every request waiting on it. */
const running = new WeakMap<object, Map<string, Promise<{ version: number; full: FullAnswer } | null>>>();

/**
 * The price index answer without blocking the serving thread: a scope's computation (0.4–0.8 s at
 * national size, 4–8 s CPU with the 24-month history) runs in a worker on its own connection to
 * the database file while the request waits; other requests are served meanwhile. Cached answers
 * are given at once. An in-memory database (tests) or a worker that fails is computed here, as
 * before.
 * @example (await priceIndexAnswer(dataSet, {}, 24)).value.meta.from // "2024-11-29"
 */
export async function priceIndexAnswer(deps: DataSet, scope: IndexScope, months: number | undefined, priority: ImportPriority = "normal"): Promise<Answered<PriceIndexAnswer>> {
  const path = deps.db.prices.filename;
  if (path === "" || path === ":memory:") return cachedPriceIndex(deps, scope, months);
  const answered = deps.answers.priceIndex.held(deps)(priceIndexAnswerKey(scope, months));
  if (answered) return { ...answered, stale: false };
  const scopeKey = priceIndexScopeKey(scope, months !== undefined);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (deps.answers.priceIndexFull.held(deps)(scopeKey)) break;
    const job = { path, scope, withHistory: months !== undefined, now: deps.now().getTime(), priority };
    const result = await shared(deps, `${deps.data.current.version}\u0000${scopeKey}`, job);
    if (result === null) break;
    // Only a computation of the version (and day) served now goes into its answer.
    if (result.version === deps.data.current.version && israelDate(deps.now()) === israelDate(new Date(job.now))) return cachedPriceIndex(deps, scope, months, result.full);
  }
  return cachedPriceIndex(deps, scope, months);
}

/** The computation of `key`, started unless one is under way; null when the worker failed. */
function shared(deps: DataSet, key: string, job: IndexJob): Promise<{ version: number; full: FullAnswer } | null> {
  let byKey = running.get(deps.answers.priceIndexFull);
  if (!byKey) running.set(deps.answers.priceIndexFull, (byKey = new Map()));
  const under = byKey.get(key);
  if (under) return under;
  const started = computeOffThread(job)
    .then((result) => {
      if (result.kind === "done") return { version: result.version, full: result.full };
      log.error("price index worker failed; computing on the serving thread", { error: result.message });
      return null;
    })
    .finally(() => byKey.delete(key));
  byKey.set(key, started);
  return started;
}

/**
 * Workers computing at once, at most: each holds a thread, a database connection and the scope's
 * rows (hundreds of MB with 24 months at national size), and a client asking for many cities or
 * regions in a row would otherwise start one each. Further jobs wait their turn.
 */
const MAX_WORKERS = 2;
let busy = 0;
const waiting: (() => void)[] = [];

/** One computation in a new worker once one of MAX_WORKERS is free, ended when it answers. */
async function computeOffThread(job: IndexJob): Promise<IndexJobResult> {
  // A finished job hands its slot to the next waiting one, so no new caller slips in between.
  if (busy < MAX_WORKERS) busy++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await runWorker(job);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  }
}

/** Workers computing now and jobs waiting for one (tests, and a look at a busy server). */
export function workerSlots(): { busy: number; waiting: number } {
  return { busy, waiting: waiting.length };
}

function runWorker(job: IndexJob): Promise<IndexJobResult> {
  const worker = new Worker(workerSpecifier("modules/price-index/compute-worker.ts"));
  return new Promise<IndexJobResult>((resolve) => {
    worker.onmessage = (event: MessageEvent<IndexJobResult>) => resolve(event.data);
    worker.onerror = (event) => resolve({ kind: "failed", message: event.message });
    worker.postMessage(job);
  }).finally(() => worker.terminate());
}
