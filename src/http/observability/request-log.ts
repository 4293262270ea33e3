import { log } from "../../lib/log.ts";

/** The fields of the one log line written per request. */
export interface RequestLine {
  request_id: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  key_prefix: string | null;
  client: string;
  /** The `X-Request-Id` the client sent, when it is not the request's id (no trusted proxy set it). */
  client_request_id?: string;
  error_code?: string;
  /** What the server knows of an error's cause and the client is not told (e.g. "Redis did not answer within 1000 ms"). */
  error_reason?: string;
  /** For an API call made by an MCP tool: `mcp`, the tool, and the /mcp request it was made for. */
  via?: "mcp";
  tool?: string;
  parent_request_id?: string;
  /** Only for `route: "unmatched"`: the path asked for (no query string; cut at 200 characters). */
  path?: string;
}

/**
 * Writes the request's line (`msg: "request"`) at info level, or warn for a 5xx other than 503
 * (not ready yet is expected while starting). Durations are rounded to 0.01 ms.
 *
 * @example logRequest({ request_id: "req_1", method: "GET", route: "/api/v1/prices", status: 200, duration_ms: 1.234, key_prefix: "sk_test_Ab12", client: "127.0.0.1" })
 */
export function logRequest(line: RequestLine): void {
  line.duration_ms = Math.round(line.duration_ms * 100) / 100;
  if (line.status >= 500 && line.status !== 503) log.warn("request", line as unknown as Record<string, unknown>);
  else log.info("request", line as unknown as Record<string, unknown>);
}
