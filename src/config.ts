import * as z from "zod";

/** Parses "on/off/true/false/1/0/yes/no". */
const onOff = z
  .union([z.boolean(), z.string()])
  .transform((v, ctx) => {
    if (typeof v === "boolean") return v;
    const s = v.trim().toLowerCase();
    if (["on", "true", "1", "yes"].includes(s)) return true;
    if (["off", "false", "0", "no"].includes(s)) return false;
    ctx.addIssue({ code: "custom", message: "expected on or off" });
    return z.NEVER;
  });

/**
 * A duration setting (`30s`, `30m`, `2h`) in milliseconds.
 * @example durationMs("30m") // 1800000
 */
export function durationMs(text: string): number {
  const m = text.trim().match(/^(\d+)(s|m|h)$/);
  if (!m) throw new Error(`expected a duration such as 30s, 30m or 2h, got "${text}"`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as "s" | "m" | "h"];
}

/** MEHIR_FETCH_CHAINS as slugs; undefined when unset (every active chain). */
export function fetchChainsOf(settings: Pick<Settings, "fetchChains">): string[] | undefined {
  const slugs = settings.fetchChains?.split(",").map((s) => s.trim()).filter(Boolean);
  return slugs?.length ? slugs : undefined;
}

const count = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const perMinute = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/**
 * Every setting of the service. Each is a flag of `mehir serve` (`--quota-free`) and an
 * environment variable (`MEHIR_QUOTA_FREE`); flags win. Names are part of the contract.
 */
export const SettingsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080).describe("TCP port to listen on (`PORT`, the hosting platforms' convention, when this is not set)"),
  host: z.string().min(1).default("0.0.0.0").describe("Address to listen on"),
  dataDir: z.string().min(1).default("./mehir-data").describe("Folder of the databases and downloaded files"),
  quotaFree: count(200).describe("Calls per month on the Free plan"),
  quotaBasic: count(10_000).describe("Calls per month on the Basic plan"),
  quotaPro: count(100_000).describe("Calls per month on the Pro plan"),
  rateFree: perMinute(60).describe("Requests per minute per key on the Free plan"),
  rateBasic: perMinute(300).describe("Requests per minute per key on the Basic plan"),
  ratePro: perMinute(1200).describe("Requests per minute per key on the Pro plan"),
  rateAnonymous: perMinute(60).describe("Requests per minute per client address without a key"),
  widgetQuota: count(10_000).describe("Widget views per month per publishable key"),
  widgetRate: perMinute(120).describe("Widget requests per minute per client address"),
  sourcesFile: z.string().optional().describe("JSON file: chain slug → { base_url, username, password }"),
  source: z.enum(["demo", "live"]).default("demo").describe("demo: embedded demo data; live: the chains' portals"),
  fetchAt: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "expected HH:MM")
    .default("05:30")
    .describe("First collection run of each day, HH:MM Asia/Jerusalem (live mode); runs follow every --fetch-every until midnight"),
  fetchEvery: z
    .string()
    .regex(/^[1-9]\d*(s|m|h)$/, "expected a duration like 30m (s/m/h)")
    .default("30m")
    .describe("Collection loop interval (live mode): each run lists the portals and fetches what is new; s, m or h, e.g. 30m"),
  fetchChains: z
    .string()
    .regex(/^\s*[a-z0-9-]+(\s*,\s*[a-z0-9-]+)*\s*$/, "expected comma-separated chain slugs")
    .optional()
    .describe("Chains to fetch, comma-separated slugs (default every active chain)"),
  fetchBackfillDays: z.coerce.number().int().min(0).max(7).default(2).describe("Earlier days whose files are still fetched when not imported yet (late publications)"),
  historyMonths: z.coerce
    .number()
    .int()
    .min(1)
    .default(25)
    .describe("Months of price history kept (the API serves up to 24, or this many when fewer); older history, ended promotions and old import records are pruned after each import (docs/operations.md \"Retention and disk\")"),
  userAgent: z.string().min(1).max(300).optional().describe("User-Agent sent to the portals (default an honest mehir product string; some portals' firewalls want a browser's)"),
  imageUrlTemplate: z.string().optional().describe("Product image URL with {barcode}; default: generated label images"),
  metrics: onOff.default(true).describe("Serve GET /metrics, on the metrics listener (on/off)"),
  metricsAddr: z
    .string()
    .regex(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, "expected HOST:PORT, e.g. 127.0.0.1:9464")
    .default("127.0.0.1:9464")
    .describe("Address of the metrics listener, HOST:PORT (loopback by default; never the API port)"),
  reusePort: onOff
    .default(false)
    .describe("Share the port with other processes (SO_REUSEPORT: the kernel splits connections between them); off: a port in use is an error"),
  trustProxy: onOff.default(false).describe("Take the client address from X-Forwarded-For and the request id from X-Request-Id (behind a reverse proxy that sets both)"),
  webhookAllowLoopback: onOff
    .default(false)
    .describe("Let price-alert webhooks target loopback addresses over http (for tests; private and link-local targets stay refused)"),
  logLevel: z.enum(["debug", "info", "warn", "error", "silent"]).default("info").describe("Log level"),
  logFormat: z
    .enum(["auto", "pretty", "json"])
    .default("auto")
    .describe("Log lines: `pretty` (short lines for people), `json` (one JSON object per line, for a journal or a log shipper), `auto`: pretty on a terminal, JSON otherwise"),
  importPriority: z
    .enum(["idle", "low", "normal"])
    .default("idle")
    .describe("CPU priority of imports: idle (only spare CPU, Linux SCHED_IDLE), low (10 steps nicer than the server: nice 10 from 0) or normal; the first start's demo import, with nothing served yet, runs at normal"),
  importMaxEntryBytes: z.coerce
    .number()
    .int()
    .min(1)
    .default(256 * 2 ** 20)
    .describe("Bytes one entry of an imported .zip of several files may unpack to (a big PriceFull is tens of MB); a larger entry is skipped and reported"),
  importMaxArchiveBytes: z.coerce
    .number()
    .int()
    .min(1)
    .default(4 * 2 ** 30)
    .describe("Bytes all entries of one imported .zip may unpack to together; entries past it are skipped and reported"),
  importMaxRunBytes: z.coerce
    .number()
    .int()
    .min(1)
    .default(8 * 2 ** 30)
    .describe("Bytes the .zip archives of one import run may unpack to the temporary folder (TMPDIR) together; entries past it are skipped and reported"),
  exports: onOff.default(true).describe("Write a dated bulk export (gzipped CSVs) of the data after each import (on/off)"),
  exportDays: z.coerce.number().int().min(1).max(366).default(30).describe("Days of daily exports kept; older ones are deleted"),
  role: z
    .enum(["standalone", "primary", "replica"])
    .default("standalone")
    .describe("standalone: one process does everything; primary: imports and publishes snapshots to replicas; replica: serves the primary's snapshots (docs/operations.md \"Scale out\")"),
  redisUrl: z.url({ protocol: /^rediss?$/ }).optional().describe("redis:// URL; when set (any role) keys, quotas and rate limits are shared through Redis"),
  primaryUrl: z.url({ protocol: /^https?$/ }).optional().describe("A replica's primary, base URL (e.g. http://10.0.0.5:8080)"),
  clusterSecret: z
    .string()
    .min(32, "expected at least 32 characters")
    .optional()
    .describe("Shared secret of the primary and its replicas (snapshot downloads); never logged or served"),
});

export type Settings = z.infer<typeof SettingsSchema>;

/** `quotaFree` → `MEHIR_QUOTA_FREE`. */
export function envName(key: string): string {
  return "MEHIR_" + key.replace(/[A-Z]/g, (c) => "_" + c).toUpperCase();
}

/** `quotaFree` → `--quota-free`. */
export function flagName(key: string): string {
  return "--" + key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

/** Settings whose values are never echoed in an error (the Redis URL may carry a password). */
const SECRET_SETTINGS = new Set(["clusterSecret", "redisUrl"]);

export class SettingsError extends Error {
  override name = "SettingsError";
}

/**
 * Builds the settings from environment variables, overridden by flags. A bad value throws a
 * SettingsError whose one-line message names the setting and both its spellings.
 *
 * @example loadSettings({ MEHIR_PORT: "9000" }, { host: "127.0.0.1" })
 */
export function loadSettings(env: Record<string, string | undefined>, flags: Record<string, unknown> = {}): Settings {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(SettingsSchema.shape)) {
    const fromEnv = env[envName(key)];
    if (fromEnv !== undefined && fromEnv !== "") raw[key] = fromEnv;
    if (flags[key] !== undefined) raw[key] = flags[key];
  }
  // Hosting platforms give the port in PORT; MEHIR_PORT and --port win over it.
  if (raw.port === undefined && env.PORT !== undefined && env.PORT !== "") raw.port = env.PORT;
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? "");
    const got = SECRET_SETTINGS.has(key) ? "" : ` (got ${JSON.stringify(raw[key])})`;
    throw new SettingsError(`invalid setting ${flagName(key)} / ${envName(key)}: ${issue.message}${got}`);
  }
  const settings = parsed.data;
  const missing = (key: keyof Settings, why: string) => {
    throw new SettingsError(`missing setting ${flagName(key)} / ${envName(key)}: ${why}`);
  };
  if (settings.role !== "standalone" && !settings.clusterSecret) missing("clusterSecret", `a ${settings.role} needs the cluster's shared secret`);
  if (settings.role === "replica" && !settings.primaryUrl) missing("primaryUrl", "a replica needs its primary's URL");
  return settings;
}
