import type { Settings } from "../config.ts";
import type { ImportPriority } from "../ingest/import-priority.ts";
import type { PassResult } from "./evaluation-pass.ts";

/** What the evaluation worker is asked (evaluation-worker.ts). */
export interface EvaluationJob {
  /** `<data-dir>/prices.sqlite`, opened read-only. */
  pricesPath: string;
  /** `<data-dir>/accounts.sqlite`: alerts and their deliveries. */
  accountsPath: string;
  settings: Settings;
  /** The evaluation's time and the deliveries' due time, ms (see PassOptions). */
  now: number;
  at: number;
  priority: ImportPriority;
  /** One Int32: set to 1 by the server to end the pass early (it is stopping). */
  stop: SharedArrayBuffer;
}

export type EvaluationReply = ({ kind: "done" } & PassResult) | { kind: "error"; message: string };
