import { afterEach, expect, test } from "bun:test";
import { logRequest, type RequestLine } from "../../../src/http/observability/request-log.ts";
import { setLogFormat, setLogLevel } from "../../../src/lib/log.ts";
import { captureStdout } from "../../helpers/stdout-capture.ts";

/**
 * The request line is written by a template of its own (request-log.ts), not JSON.stringify: it
 * must say exactly what JSON.stringify of the same fields says, whatever a client put in the
 * fields it controls (the forwarded address, its X-Request-Id, an unmatched path).
 */
afterEach(() => {
  setLogLevel("warn");
  setLogFormat("auto");
});

/** The lines logRequest writes to stdout (fd 1). */
function written(lines: RequestLine[]): string[] {
  const out = captureStdout();
  try {
    for (const line of lines) logRequest(line);
    return out.lines();
  } finally {
    out.restore();
  }
}

/** What JSON.stringify writes for the same fields (duration rounded as logRequest rounds it). */
function expected(line: RequestLine): string {
  return JSON.stringify({ ...line, duration_ms: Math.round(line.duration_ms * 100) / 100 });
}

const HOSTILE = ['"', "\\", "\n", "\u0000", "\u001f", "\u007f", "שלום", "\ud800", "😀", "a\"b\\c", "</script>", "\u2028", " "];

function randomText(random: () => number): string {
  let s = "";
  const n = Math.floor(random() * 6);
  for (let i = 0; i < n; i++) s += random() < 0.5 ? String.fromCharCode(32 + Math.floor(random() * 95)) : HOSTILE[Math.floor(random() * HOSTILE.length)]!;
  return s;
}

test("every request line says what JSON.stringify says of its fields, hostile text included", () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const lines: RequestLine[] = [];
  for (let i = 0; i < 500; i++) {
    const line: RequestLine = {
      request_id: `req_${i.toString(16)}`,
      method: random() < 0.9 ? "GET" : randomText(random),
      route: random() < 0.8 ? "/api/v1/prices" : "unmatched",
      status: [200, 304, 401, 404, 429, 500, 503][i % 7]!,
      duration_ms: random() * 100,
      key_prefix: random() < 0.3 ? null : random() < 0.8 ? "sk_live_AbC1" : randomText(random),
      client: random() < 0.7 ? "127.0.0.1" : randomText(random),
    };
    if (random() < 0.3) line.error_code = "invalid_parameter";
    if (random() < 0.2) line.error_reason = randomText(random);
    if (random() < 0.3) line.client_request_id = randomText(random);
    if (random() < 0.1) Object.assign(line, { via: "mcp", tool: "get_prices", parent_request_id: "req_parent" });
    if (line.route === "unmatched") line.path = `/${randomText(random)}`;
    lines.push(line);
  }
  const out = written(lines.map((l) => ({ ...l })));
  expect(out).toHaveLength(lines.length);
  out.forEach((text, i) => {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(parsed).slice(0, 3)).toEqual(["time", "level", "msg"]);
    expect(parsed.msg).toBe("request");
    expect(parsed.level).toBe(lines[i]!.status >= 500 && lines[i]!.status !== 503 ? "warn" : "info");
    // The same text after the three leading members.
    expect(`{${text.slice(text.indexOf('"request_id"'))}`).toBe(expected(lines[i]!));
  });
});

test("a duration that is not a number is written as JSON writes it (null), not as NaN", () => {
  const [text] = written([{ request_id: "req_1", method: "GET", route: "/x", status: 200, duration_ms: Number.NaN, key_prefix: null, client: "::1" }]);
  expect((JSON.parse(text!) as { duration_ms: unknown }).duration_ms).toBeNull();
});

test("durations and statuses print as JSON.stringify prints them (the line is written as bytes, digit by digit)", () => {
  const durations = [0, 0.004, 0.005, 0.01, 0.07, 0.1, 0.5, 1, 1.005, 1.05, 9.99, 10, 12.3, 123.456, 99999.99, 1e10 + 0.25, 1e11 + 0.5, 1e15, 2.5e21, NaN, Infinity];
  const statuses = [200, 0, 9, 10, 99, 404, 503, 599];
  const lines: RequestLine[] = durations.map((duration_ms, i) => ({
    request_id: `req_${i}`,
    method: "GET",
    route: "/api/v1/prices",
    status: statuses[i % statuses.length]!,
    duration_ms,
    key_prefix: "sk_live_AbC1",
    client: "::1",
  }));
  const out = written(lines.map((l) => ({ ...l })));
  expect(out).toHaveLength(lines.length);
  out.forEach((text, i) => expect(`{${text.slice(text.indexOf('"request_id"'))}`).toBe(expected(lines[i]!)));
});

test("a line longer than the batch holds is written whole (as text)", () => {
  const client = "x".repeat(200_000);
  const [text] = written([{ request_id: "req_1", method: "GET", route: "unmatched", status: 404, duration_ms: 1, key_prefix: null, client, path: "/a" }]);
  expect(JSON.parse(text!).client).toBe(client);
});
