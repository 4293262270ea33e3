import * as z from "zod";
import { requestState } from "./request-state.ts";

/** `meta.livemode` of every answer (the app's onAfterHandle sets it from the key's kind). */
export const LiveMode = z
  .boolean()
  .describe("true: live data (live and publishable keys); false: test mode (an sk_test_ key), whose data is the sandbox — the embedded demo dataset — unless the service's live data is that demo itself");

/** The request's mode: false only for a test key. */
export function livemodeOf(request: Request): boolean {
  return requestState(request).access?.keyKind !== "test";
}
