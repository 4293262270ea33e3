import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { problemResponse } from "../http/encoding/problem.ts";
import { requestState } from "../http/request/request-state.ts";
import { requestPath } from "../http/request/request-target.ts";

/**
 * Paths a replica never serves: accounts, keys and the portal, price alerts (account data) and
 * the daily exports live on the primary (the reverse proxy sends them there, deploy/nginx). A
 * request reaching a replica anyway gets 421 `primary_only` — refused, not forwarded, so a
 * misrouted write fails loudly instead of taking a second path through the cluster.
 */
const PRIMARY_ONLY = /^\/(portal|api\/v1\/alerts|api\/v1\/exports)(\/|$)/;

/** The refusal on a replica (registered before the access layer: no key is checked first); nothing on other roles. */
export function primaryOnly(role: "standalone" | "primary" | "replica") {
  const plugin = new Elysia({ name: "cluster.primary-only" });
  if (role !== "replica") return plugin;
  return plugin.onRequest(({ request }) => {
    if (!PRIMARY_ONLY.test(requestPath(request) ?? "")) return;
    const state = requestState(request);
    return problemResponse(new ApiError("primary_only", "This server is a read-only replica: accounts, the portal, price alerts and the exports are served by the primary. Send this request to the primary (the reverse proxy routes these paths there)."), state.id, state.headers);
  });
}
