/**
 * Log lines for people at a terminal (MEHIR_LOG_FORMAT=pretty, or auto on a terminal): the
 * events a newcomer watches — listening, the first start's demo data, import progress, ready —
 * as short sentences; requests as `GET /path 200 1.2 ms`; anything else as
 * `HH:MM:SS level message key=value …`. The JSON lines (log.ts) carry the same events for programs.
 */

type Fields = Record<string, unknown>;

const clock = (iso: string) => iso.slice(11, 19);

/** `key=value` pairs, strings bare unless they hold a space. */
function pairs(fields: Fields): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${typeof v === "string" ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`)
    .join(" ");
}

const number = (n: unknown) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));
const seconds = (ms: unknown) => (typeof ms === "number" ? `${(ms / 1000).toFixed(1)} s` : "");

/** The sentence of a well-known event, or null for the generic form. */
function sentence(msg: string, f: Fields): string | null {
  switch (msg) {
    case "listening":
      return `mehir is listening on ${f.url} (data: ${f.data_dir}, ${f.source} data${f.data_version === 0 ? "; preparing it first — the API answers 503 data_not_ready until ready" : ""})`;
    case "ready":
      return `ready — ${f.url} · docs ${f.docs} · portal ${f.portal}`;
    case "demo: generating files":
      return "first start: generating the demo data (10–20 seconds on two cores)…";
    case "demo: files written":
      return `demo data written: ${number(f.files)} files (${seconds(f.ms)})`;
    case "import: progress":
      return `importing ${f.origin === "demo" ? "the demo data" : "files"}: ${f.percent}% (${number(f.files_done)} of ${number(f.files_total)} files)`;
    case "search index built":
      return `search index built: ${number(f.products)} products (${seconds(f.ms)})`;
    case "demo: imported":
      return `demo data imported: ${number(f.files)} files, ${number(f.rows)} rows (${seconds(f.ms)})`;
    case "request":
      return `${f.method} ${f.route ?? f.path ?? ""} ${f.status} ${typeof f.duration_ms === "number" ? `${f.duration_ms.toFixed(1)} ms` : ""}`.trimEnd();
    case "stopped":
      return "stopped";
    default:
      return null;
  }
}

/**
 * One pretty line.
 * @example prettyLine("2026-11-29T08:00:00.000Z", "info", "ready", { url: "http://127.0.0.1:8080", docs: "/docs", portal: "/portal/" })
 * // "08:00:00 ready — http://127.0.0.1:8080 · docs /docs · portal /portal/"
 */
export function prettyLine(time: string, level: string, msg: string, fields: Fields): string {
  const tag = level === "info" || level === "debug" ? "" : `${level.toUpperCase()} `;
  const known = sentence(msg, fields);
  if (known !== null) return `${clock(time)} ${tag}${known}`;
  const rest = pairs(fields);
  return `${clock(time)} ${tag}${msg}${rest ? ` ${rest}` : ""}`;
}
