/** Structured JSON logs, one line per event, to stdout (errors to stderr); CLI commands send them all to stderr (setLogStream). */
import { writeSync } from "node:fs";

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
}

function write(level: Level, msg: string, fields: Record<string, unknown>): void {
  if (RANK[level] < threshold) return;
  const line = lineOf(level, msg, fields);
  if (level === "error" || logFd === 2) {
    flushStdout();
    console.error(line);
  } else {
    toStdout(line);
  }
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
// FLUSH_MS of lines.
const FLUSH_MS = 50;
const FLUSH_BYTES = 256 * 1024;
let batch = "";
let scheduled = false;

function toStdout(line: string): void {
  batch += line + "\n";
  if (batch.length >= FLUSH_BYTES) flushStdout();
  else if (!scheduled) {
    scheduled = true;
    setTimeout(flushStdout, FLUSH_MS).unref();
  }
}

/** Writes the lines batched so far (called automatically; exported for tests and shutdown). */
export function flushStdout(): void {
  scheduled = false;
  if (batch === "") return;
  const text = batch;
  batch = "";
  try {
    writeSync(1, text);
  } catch {
    console.log(text.slice(0, -1));
  }
}

process.on("exit", flushStdout);

export const log = {
  debug: (msg: string, fields: Record<string, unknown> = {}) => write("debug", msg, fields),
  info: (msg: string, fields: Record<string, unknown> = {}) => write("info", msg, fields),
  warn: (msg: string, fields: Record<string, unknown> = {}) => write("warn", msg, fields),
  error: (msg: string, fields: Record<string, unknown> = {}) => write("error", msg, fields),
};
