import type { AppDeps } from "../../src/app.ts";

/**
 * Headers carrying a test secret key on the given plan. Until the access layer exists this
 * returns no header (the API is then open); once it does, it creates an account and key.
 */
export async function withKey(_deps: AppDeps, _plan: "free" | "basic" | "pro"): Promise<Record<string, string>> {
  return {};
}
