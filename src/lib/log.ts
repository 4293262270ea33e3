/** Structured JSON logs, one line per event, to stdout (errors to stderr); CLI commands send them all to stderr (setLogStream). */
import { writeSync } from "node:fs";
import { isatty } from "node:tty";
import { prettyLine } from "./pretty-log.ts";

type Level = "debug" | "info" | "warn" | "error";
const RANK: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

// Under `bun test` (NODE_ENV=test) only warnings and errors, unless MEHIR_LOG_LEVEL says otherwise:
// the per-request lines would drown the test report.
const defaultLevel = process.env.NODE_ENV === "test" ? "warn" : "info";
let threshold: number = RANK[(process.env.MEHIR_LOG_LEVEL as Level) ?? defaultLevel] ?? RANK[defaultLevel];

export function setLogLevel(level: Level | "silent"): void {
  threshold = RANK[level];
}

// The server logs to stdout (the journal); a command whose output is a report for people or
// scripts (`mehir fetch`) keeps stdout for it and logs to stderr.
let logFd: 1 | 2 = 1;

export function setLogStream(stream: "stdout" | "stderr"): void {
  flushStdout();
  logFd = stream === "stderr" ? 2 : 1;
  pretty = isPretty();
}

// `pretty` (pretty-log.ts) for people, `json` for programs; `auto`: pretty when the log's stream is
// a terminal (asked once per change, not per line).
let format: "auto" | "pretty" | "json" = (process.env.MEHIR_LOG_FORMAT as "auto" | "pretty" | "json") ?? "auto";
let pretty = isPretty();

export function setLogFormat(value: "auto" | "pretty" | "json"): void {
  format = value;
  pretty = isPretty();
}

function isPretty(): boolean {
  return format === "pretty" || (format === "auto" && isatty(logFd));
}

function write(level: Level, msg: string, fields: Record<string, unknown>, members?: Members | MembersWriter): void {
  if (RANK[level] < threshold) return;
  const toErr = level === "error" || logFd === 2;
  // The hot line (one per request) goes into the batch as bytes, with no string made for it.
  if (!pretty && !toErr && members !== undefined && typeof members !== "function" && bytesLine(level, msg, fields, members)) return;
  const text = typeof members === "function" ? members : members?.text;
  const line = pretty ? prettyLine(isoNow(), level, msg, fields) : text ? `{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(msg)},${text(fields as never)}}` : lineOf(level, msg, fields);
  if (toErr) {
    flushStdout();
    console.error(line);
  } else {
    toStdout(line);
  }
}

// `{"time":"…","level":"…","msg":…,` as UTF-8, made once per millisecond, level and message.
let head = { ms: NaN, level: "", msg: "", bytes: new Uint8Array(0) };

/**
 * Writes `{"time":…,"level":…,"msg":…,<members>}` and a newline into the batch (see toStdout), the
 * members by `members.write`; false (nothing written) for a line longer than the batch holds.
 */
function bytesLine(level: Level, msg: string, fields: Record<string, unknown>, members: MembersWriter): boolean {
  const time = isoNow();
  if (head.ms !== isoAt.ms || head.level !== level || head.msg !== msg) {
    head = { ms: isoAt.ms, level, msg, bytes: encoder.encode(`{"time":"${time}","level":"${level}","msg":${JSON.stringify(msg)},`) };
  }
  const most = head.bytes.length + members.bound(fields as never) + 2;
  if (most > pending.length) return false;
  if (used + most > pending.length) flushStdout();
  pending.set(head.bytes, used);
  used = members.write(pending, used + head.bytes.length, fields as never);
  pending[used++] = 125; // }
  pending[used++] = 10;
  lineAdded();
  return true;
}

/**
 * `{"time":…,"level":…,"msg":…, ...fields}` as JSON. The fields' own JSON is spliced in after
 * `msg` (no merged object per line: one is written per request) — unless a field would replace
 * time, level or msg, which the merged object does in their places.
 */
function lineOf(level: Level, msg: string, fields: Record<string, unknown>): string {
  const time = isoNow();
  if ("time" in fields || "level" in fields || "msg" in fields || "toJSON" in fields) return JSON.stringify({ time, level, msg, ...fields });
  const rest = JSON.stringify(fields);
  return `{"time":"${time}","level":"${level}","msg":${JSON.stringify(msg)}${rest === "{}" ? "}" : `,${rest.slice(1)}`}`;
}

// The current millisecond's ISO time, formatted once for all the lines written within it.
let isoAt = { ms: NaN, text: "" };

function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoAt.ms) isoAt = { ms, text: new Date(ms).toISOString() };
  return isoAt.text;
}

// stdout lines are batched for up to FLUSH_MS (or FLUSH_BYTES) and written with one blocking write
// (like console.log, nothing is dropped when the reader is slow): under load one syscall serves
// hundreds of request lines instead of one each. Flushed at exit; a SIGKILL loses at most
// FLUSH_MS of lines. Each line is encoded into one buffer, kept: joining them as text made a
// string of up to FLUSH_BYTES (and its UTF-8 copy) per write, memory the allocator mapped and
// returned again write after write (a bare server writing a line per request: 5–9 µs of CPU per
// request joined, 2–3 µs encoded here; bench/RESULTS.md, HTTP wrk-only readings).
const FLUSH_MS = 50;
const FLUSH_BYTES = 256 * 1024;
/** Room for FLUSH_BYTES and a line that starts just below it; a longer line is written alone. */
const pending = new Uint8Array(2 * FLUSH_BYTES);
const encoder = new TextEncoder();
let used = 0;
let scheduled = false;

function toStdout(line: string): void {
  // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair's 4 bytes are 2 per unit).
  const most = line.length * 3 + 1;
  if (used + most > pending.length) flushStdout();
  if (most > pending.length) {
    writeAll(encoder.encode(line + "\n"));
    return;
  }
  used += encoder.encodeInto(line, pending.subarray(used)).written;
  pending[used++] = 10;
  lineAdded();
}

/** After a line went into the batch: written at once past FLUSH_BYTES, else within FLUSH_MS. */
function lineAdded(): void {
  if (used >= FLUSH_BYTES) flushStdout();
  else if (!scheduled) {
    scheduled = true;
    setTimeout(flushStdout, FLUSH_MS).unref();
  }
}

/** Writes the lines batched so far (called automatically; exported for tests and shutdown). */
export function flushStdout(): void {
  scheduled = false;
  if (used === 0) return;
  const bytes = pending.subarray(0, used);
  used = 0;
  writeAll(bytes);
}

/** All of `bytes` to stdout (a write may take only part of them), or to console.log if stdout fails. */
function writeAll(bytes: Uint8Array): void {
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at, bytes.length - at);
  } catch {
    console.log(new TextDecoder().decode(bytes.subarray(at, bytes.length - 1)));
  }
}

process.on("exit", flushStdout);

/**
 * `members`, when given, writes `fields` as JSON members (`"a":1,"b":"x"`, no braces) in place of
 * JSON.stringify: for a line of one known, flat shape written very often (the request log's). The
 * pretty format reads `fields` as for any line.
 */
type Members = (fields: never) => string;

/**
 * For the line written most often (the request log's): its members written straight into the
 * batch's bytes, with no string made per line, and the same members as text (for stderr, and for a
 * line longer than the batch holds). The pretty format reads `fields` as for any line.
 */
export interface MembersWriter {
  text: Members;
  /** At most how many bytes `write` writes for these fields. */
  bound(fields: never): number;
  /** Writes the members' UTF-8 at `at` in `out` (room for `bound` bytes); returns where they end. */
  write(out: Uint8Array, at: number, fields: never): number;
}

export const log = {
  debug: (msg: string, fields: Record<string, unknown> = {}, members?: Members | MembersWriter) => write("debug", msg, fields, members),
  info: (msg: string, fields: Record<string, unknown> = {}, members?: Members | MembersWriter) => write("info", msg, fields, members),
  warn: (msg: string, fields: Record<string, unknown> = {}, members?: Members | MembersWriter) => write("warn", msg, fields, members),
  error: (msg: string, fields: Record<string, unknown> = {}, members?: Members | MembersWriter) => write("error", msg, fields, members),
};
