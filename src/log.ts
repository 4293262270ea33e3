/** Structured JSON logs, one line per event, to stdout (errors to stderr). */

type Level = "debug" | "info" | "warn" | "error";
const RANK: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold: number = RANK[(process.env.MEHIR_LOG_LEVEL as Level) ?? "info"] ?? RANK.info;

export function setLogLevel(level: Level | "silent"): void {
  threshold = RANK[level];
}

function write(level: Level, msg: string, fields: Record<string, unknown>): void {
  if (RANK[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}

export const log = {
  debug: (msg: string, fields: Record<string, unknown> = {}) => write("debug", msg, fields),
  info: (msg: string, fields: Record<string, unknown> = {}) => write("info", msg, fields),
  warn: (msg: string, fields: Record<string, unknown> = {}) => write("warn", msg, fields),
  error: (msg: string, fields: Record<string, unknown> = {}) => write("error", msg, fields),
};
