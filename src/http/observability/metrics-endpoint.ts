import type { Services } from "../../services.ts";
import { answerMetrics } from "./answer-metrics.ts";
import { dataMetrics } from "./data-metrics.ts";
import { databaseMetrics } from "./database-metrics.ts";
import { processMetrics } from "./process-metrics.ts";
import type { HttpMetrics } from "./http-metrics.ts";
import { ApiError, problemResponse } from "../encoding/problem.ts";
import { requestPath } from "../request/request-target.ts";
import { requestState } from "../request/request-state.ts";
import { invalidTarget } from "../request/invalid-target.ts";

export const METRICS_PATH = "/metrics";

/** A handler of the metrics listener's requests. */
export type MetricsEndpoint = (request: Request) => Response;

/**
 * `GET /metrics` in Prometheus text: the request metrics, answer caches, data freshness, the
 * cluster role's lines and the process's memory. Served on a listener of its own
 * (metrics-listener.ts), never on the API port: what it shows (routes, refusals, import state,
 * per-chain freshness) is for the operator. Anything else there is a 404 problem.
 */
export function metricsEndpoint(deps: Pick<Services, "dataSets" | "roleMetrics" | "db">, metrics: HttpMetrics): MetricsEndpoint {
  const { dataSets } = deps;
  return (request) => {
    const path = requestPath(request);
    const id = requestState(request).id;
    if (path === null) return problemResponse(invalidTarget(), id);
    if ((request.method !== "GET" && request.method !== "HEAD") || (path !== METRICS_PATH && path !== `${METRICS_PATH}/`)) {
      return problemResponse(new ApiError("not_found", "The metrics listener serves GET /metrics only."), id);
    }
    const text = metrics.render() + answerMetrics(dataSets) + dataMetrics(dataSets.live.db.prices, dataSets.live.now(), dataSets.live.data.current) + databaseMetrics({ prices: dataSets.live.db.prices, accounts: deps.db.accounts }) + (deps.roleMetrics?.() ?? "") + processMetrics();
    return new Response(request.method === "HEAD" ? null : text, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
  };
}
