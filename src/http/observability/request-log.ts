import { log, type MembersWriter } from "../../lib/log.ts";

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
  if (line.status >= 500 && line.status !== 503) log.warn("request", fields, REQUEST_MEMBERS);
  else log.info("request", fields, REQUEST_MEMBERS);
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

/** The optional members, in the order requestMembers writes them. */
const OPTIONAL = ["error_code", "error_reason", "client_request_id", "via", "tool", "parent_request_id", "path"] as const;

const utf8 = new TextEncoder();
/** `"name":` (with its leading comma past the first) as bytes, made once. */
const KEYS = Object.fromEntries(
  ["request_id", "method", "route", "status", "duration_ms", "key_prefix", "client", ...OPTIONAL].map((name, i) => [name, utf8.encode(`${i === 0 ? "" : ","}"${name}":`)]),
) as Record<keyof RequestLine, Uint8Array>;
const NULL = utf8.encode("null");

/** Bytes of `value`'s JSON at most: 6 a UTF-16 unit (`\u001f`, a lone surrogate's `\ud800`), 2 quotes. */
const textBound = (value: string | undefined | null) => (value == null ? 4 : value.length * 6 + 2);

/**
 * requestMembers written straight into bytes (log.ts MembersWriter): the same UTF-8 as its text
 * (request-log.test.ts compares them), with no string made per line. Plain strings (printable
 * ASCII without `"` and `\`: ids, routes, addresses) are copied a byte a character; any other goes
 * through JSON.stringify.
 */
const REQUEST_MEMBERS: MembersWriter = {
  text: requestMembers as MembersWriter["text"],
  bound(fields: never): number {
    const l = fields as RequestLine;
    let n = 160 + textBound(l.request_id) + textBound(l.method) + textBound(l.route) + textBound(l.key_prefix) + textBound(l.client);
    // Each optional member named, not looked up by a name read from a list: a lookup by a computed
    // name, 14 a line, was most of the line's cost under load.
    if (l.error_code !== undefined) n += 24 + textBound(l.error_code);
    if (l.error_reason !== undefined) n += 24 + textBound(l.error_reason);
    if (l.client_request_id !== undefined) n += 24 + textBound(l.client_request_id);
    if (l.via !== undefined) n += 24 + textBound(l.via);
    if (l.tool !== undefined) n += 24 + textBound(l.tool);
    if (l.parent_request_id !== undefined) n += 24 + textBound(l.parent_request_id);
    if (l.path !== undefined) n += 24 + textBound(l.path);
    return n;
  },
  write(out: Uint8Array, at: number, fields: never): number {
    const l = fields as RequestLine;
    at = putBytes(out, at, KEYS.request_id);
    at = putText(out, at, l.request_id);
    at = putBytes(out, at, KEYS.method);
    at = putText(out, at, l.method);
    at = putBytes(out, at, KEYS.route);
    at = putText(out, at, l.route);
    at = putBytes(out, at, KEYS.status);
    at = putNumber(out, at, l.status);
    at = putBytes(out, at, KEYS.duration_ms);
    at = putHundredths(out, at, l.duration_ms);
    at = putBytes(out, at, KEYS.key_prefix);
    at = l.key_prefix === null ? putBytes(out, at, NULL) : putText(out, at, l.key_prefix);
    at = putBytes(out, at, KEYS.client);
    at = putText(out, at, l.client);
    if (l.error_code !== undefined) at = putMember(out, at, KEYS.error_code, l.error_code);
    if (l.error_reason !== undefined) at = putMember(out, at, KEYS.error_reason, l.error_reason);
    if (l.client_request_id !== undefined) at = putMember(out, at, KEYS.client_request_id, l.client_request_id);
    if (l.via !== undefined) at = putMember(out, at, KEYS.via, l.via);
    if (l.tool !== undefined) at = putMember(out, at, KEYS.tool, l.tool);
    if (l.parent_request_id !== undefined) at = putMember(out, at, KEYS.parent_request_id, l.parent_request_id);
    if (l.path !== undefined) at = putMember(out, at, KEYS.path, l.path);
    return at;
  },
};

/** An optional member: its `,"name":` and its text. */
function putMember(out: Uint8Array, at: number, name: Uint8Array, value: string): number {
  return putText(out, putBytes(out, at, name), value);
}

function putBytes(out: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) out[at + i] = bytes[i]!;
  return at + bytes.length;
}

/** A string as JSON: plain ones byte by byte, others as JSON.stringify writes them. */
function putText(out: Uint8Array, at: number, value: string): number {
  const start = at;
  out[at++] = 34;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92) return start + utf8.encodeInto(JSON.stringify(value), out.subarray(start)).written;
    out[at++] = c;
  }
  out[at++] = 34;
  return at;
}

/** A number as JSON: digits for a small non-negative integer, else as JSON.stringify writes it. */
function putNumber(out: Uint8Array, at: number, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) return putAscii(out, at, JSON.stringify(value));
  if (value >= 10) at = putNumber(out, at, Math.floor(value / 10));
  out[at] = 48 + (value % 10);
  return at + 1;
}

/**
 * A duration logRequest rounded to hundredths, as JSON writes it (`12`, `1.5`, `0.07`): from its
 * whole hundredths, which print the same as the number for any value below 10^11 ms; others as JSON.
 */
function putHundredths(out: Uint8Array, at: number, value: number): number {
  const hundredths = Math.round(value * 100);
  if (!(value >= 0 && value < 1e11) || hundredths / 100 !== value) return putAscii(out, at, JSON.stringify(value));
  at = putNumber(out, at, Math.floor(hundredths / 100));
  const fraction = hundredths % 100;
  if (fraction === 0) return at;
  out[at++] = 46; // .
  out[at++] = 48 + Math.floor(fraction / 10);
  if (fraction % 10 !== 0) out[at++] = 48 + (fraction % 10);
  return at;
}

/** ASCII text (a number's JSON) as bytes. */
function putAscii(out: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}
