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
  const fields = line as unknown as Record<string, unknown>;
  if (line.status >= 500 && line.status !== 503) log.warn("request", fields, requestMembers);
  else log.info("request", fields, requestMembers);
}

// Printable ASCII without `"` and `\`: a string JSON writes as it is.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON: most of a request's (ids, routes, addresses) need no escaping. */
function text(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * The line's fields as JSON members, as JSON.stringify writes them in the order the observer sets
 * them (request-log.test.ts compares the two): one template instead of a generic serializer, on
 * the line every request writes.
 */
function requestMembers(l: RequestLine): string {
  let out = `"request_id":${text(l.request_id)},"method":${text(l.method)},"route":${text(l.route)},"status":${l.status},"duration_ms":${Number.isFinite(l.duration_ms) ? l.duration_ms : "null"},"key_prefix":${l.key_prefix === null ? "null" : text(l.key_prefix)},"client":${text(l.client)}`;
  if (l.error_code !== undefined) out += `,"error_code":${text(l.error_code)}`;
  if (l.error_reason !== undefined) out += `,"error_reason":${text(l.error_reason)}`;
  if (l.client_request_id !== undefined) out += `,"client_request_id":${text(l.client_request_id)}`;
  if (l.via !== undefined) out += `,"via":${text(l.via)}`;
  if (l.tool !== undefined) out += `,"tool":${text(l.tool)}`;
  if (l.parent_request_id !== undefined) out += `,"parent_request_id":${text(l.parent_request_id)}`;
  if (l.path !== undefined) out += `,"path":${text(l.path)}`;
  return out;
}
