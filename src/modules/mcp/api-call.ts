import type { Problem } from "../../http/encoding/problem.ts";
import { requestState } from "../../http/request/request-state.ts";

/** The API request a tool call makes. */
export interface ApiCall {
  method: "GET" | "POST";
  /** Path under the service's root, e.g. `/api/v1/prices/`. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (POST). */
  body?: unknown;
}

/** Who a tool call is made for: the /mcp request's key, origin, id and client address. */
export interface Caller {
  /** The secret key the client authenticated /mcp with. */
  key: string;
  /** The scheme and host of the /mcp request's own URL: tool calls are requests to it. */
  origin: string;
  /** X-Forwarded-Proto and -Host of the /mcp request, passed on behind a trusted proxy (links in answers, e.g. image URLs, follow them). */
  forwarded: Record<string, string>;
  requestId: string;
  client: string;
  /**
   * The quota left after the latest tool call's API request (its X-Quota-Remaining), so the /mcp
   * answer's own header is current rather than the figure from before its tool calls.
   */
  quotaRemaining?: string;
}

/** The API's answer: its `{ data, meta }` envelope, or its problem+json. */
export type ApiAnswer = { ok: true; status: number; body: { data: unknown; meta: Record<string, unknown> } } | { ok: false; status: number; problem: Problem };

export type Handle = (request: Request) => Promise<Response>;

/** The URL of an API call at the caller's origin. */
export function apiUrl(origin: string, call: ApiCall): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) params.set(name, String(value));
  const query = params.toString();
  return `${origin}${call.path}${query ? `?${query}` : ""}`;
}

/**
 * Makes an API request through the app itself, with the caller's key: authentication, the plan
 * gate, the rate limit, the quota (and whatever else the access layer applies) are those of the
 * same request made directly, and so are its answer and error. Its log line says it was made for
 * an MCP tool and names the /mcp request (`via`, `tool`, `parent_request_id`).
 */
export async function callApi(handle: Handle, tool: string, call: ApiCall, caller: Caller): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...caller.forwarded, "x-api-key": caller.key, accept: "application/json" };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(apiUrl(caller.origin, call), {
    method: call.method,
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  requestState(request).internal = { via: "mcp", tool, parentRequestId: caller.requestId, client: caller.client };
  const response = await handle(request);
  const remaining = response.headers.get("x-quota-remaining");
  if (remaining !== null) caller.quotaRemaining = remaining;
  const body = (await response.json()) as never;
  if (response.ok) return { ok: true, status: response.status, body };
  return { ok: false, status: response.status, problem: body };
}
