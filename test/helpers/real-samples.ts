import { existsSync } from "node:fs";
import { join } from "node:path";

/** The chains' published files, kept beside the repository (never in it): `../shared/samples/real`. */
export const REAL_SAMPLES = join(import.meta.dir, "../../../shared/samples/real");

/** Whether the published samples are here; when not, says why `suite` is skipped. */
export function realSamplesFor(suite: string): boolean {
  const found = existsSync(REAL_SAMPLES);
  if (!found) console.warn(`${suite}: skipped — ${REAL_SAMPLES} is absent (the published samples live beside the repository, never in it)`);
  return found;
}
