/**
 * The fetcher's HTTP client: one per chain and portal, with its own cookie jar, manual
 * redirects (so cookies set on a 302 are kept, as the Cerberus login needs), per-request
 * timeouts, retries with exponential backoff, an explicit proxy and a polite User-Agent.
 */

export const DEFAULT_USER_AGENT = "mehir/0.1 (self-hosted price-transparency fetcher; +https://github.com/mehir)";

export interface HttpOptions {
  /** Per attempt, request and body together. */
  timeoutMs: number;
  /** Download attempts get this much instead (big files). */
  downloadTimeoutMs: number;
  /** Further attempts after the first on network errors, resets, timeouts, 408/429/5xx (and a listed file's 404). */
  retries: number;
  /** First backoff; doubles each retry, with up to 25 % jitter. */
  backoffMs: number;
  userAgent: string;
  /** Proxy environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, lowercase too). */
  env: Record<string, string | undefined>;
  fetch: typeof fetch;
  /** Awaited before each request: per-portal spacing shared by a run's clients (see pacer.ts). */
  pace?: (url: string) => Promise<void>;
}

export const DEFAULT_HTTP: HttpOptions = {
  timeoutMs: 60_000,
  downloadTimeoutMs: 300_000,
  retries: 3,
  backoffMs: 1_000,
  userAgent: DEFAULT_USER_AGENT,
  env: process.env,
  fetch: globalThis.fetch,
};

export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * The portal refused the service's address: a firewall's challenge page or refusal (Reblaze
 * answers 247, Cloudflare 403 or 503 with a challenge) where a listing or a file was expected.
 * Not retried: the next run tries again. The chain reads `blocked`, not "no files published".
 */
export class BlockedError extends HttpError {
  override name = "BlockedError";
  constructor(message: string, status: number | null) {
    super(message, status, false);
  }
}

/** A connection that never answered, on every attempt (laibcatalog drops data-centre addresses). */
export class NoAnswerError extends HttpError {
  override name = "NoAnswerError";
  constructor(message: string) {
    super(message, null, true);
  }
}

// Text of the challenge pages of the firewalls in front of portals (Reblaze, Cloudflare, Imperva).
const CHALLENGE = /rbzns|rbzid|reblaze|cf-chl|challenge-platform|cf_chl_opt|just a moment\.\.\.|attention required! \| cloudflare|_incapsula_resource|request unsuccessful\. incapsula/i;

/**
 * Why an answer is a refusal of the service's address rather than the page asked for, or null:
 * HTTP 247 (Reblaze), 403, or a challenge page (with any status).
 * @example refusal(247, "<html>…") // "HTTP 247: a firewall challenge (Reblaze) instead of the page"
 */
export function refusal(status: number, body: string): string | null {
  const challenge = CHALLENGE.test(body.slice(0, 20_000));
  if (status === 247) return "HTTP 247: a firewall challenge (Reblaze) instead of the page";
  if (status === 403) return `HTTP 403: the portal refused this address${challenge ? " (a firewall challenge)" : ""}`;
  if (challenge) return `HTTP ${status}: a firewall challenge page instead of the page`;
  return null;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * The proxy URL for a request, from HTTPS_PROXY/HTTP_PROXY (either case), or null when none
 * applies: no proxy set, a loopback host, or a host listed in NO_PROXY (`*`, exact or suffix).
 *
 * @example proxyFor("https://prices.shufersal.co.il/", { HTTPS_PROXY: "http://10.0.0.1:3128" }) // "http://10.0.0.1:3128"
 */
export function proxyFor(url: string, env: Record<string, string | undefined>): string | null {
  const target = new URL(url);
  const host = target.hostname.toLowerCase();
  if (LOOPBACK.has(host)) return null;
  const get = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  const noProxy = (get("NO_PROXY") ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const entry of noProxy) {
    if (entry === "*") return null;
    const bare = entry.replace(/^\*?\./, "").replace(/:\d+$/, "");
    if (host === bare || host.endsWith("." + bare)) return null;
  }
  const proxy = target.protocol === "https:" ? get("HTTPS_PROXY") ?? get("HTTP_PROXY") : get("HTTP_PROXY");
  return proxy ?? null;
}

/** Host-scoped cookies (name → value); enough for portal sessions. */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  store(url: string, response: Response): void {
    const host = new URL(url).host;
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      if (eq <= 0) continue;
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const jar = this.byHost.get(host) ?? new Map<string, string>();
      this.byHost.set(host, jar);
      const expired = attrs.some((a) => {
        const [k, v] = a.split("=").map((s) => s.trim().toLowerCase());
        return (k === "max-age" && Number(v) <= 0) || (k === "expires" && v !== undefined && Date.parse(v) < Date.now());
      });
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
  }

  header(url: string): string | null {
    const jar = this.byHost.get(new URL(url).host);
    if (!jar || jar.size === 0) return null;
    return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  clear(): void {
    this.byHost.clear();
  }
}

export interface RequestInitLite {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string | number>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export class HttpClient {
  readonly jar = new CookieJar();
  readonly options: HttpOptions;

  constructor(options: Partial<HttpOptions> = {}) {
    this.options = { ...DEFAULT_HTTP, ...options };
  }

  /**
   * One attempt: sends the request, follows up to 5 redirects by hand (keeping cookies;
   * 301/302/303 after a POST become a GET) and returns the final response. The caller reads
   * the body; `signal` bounds the whole attempt.
   */
  async send(url: string, init: RequestInitLite = {}, signal?: AbortSignal): Promise<Response> {
    let method = init.method ?? "GET";
    let body: string | undefined = init.form ? new URLSearchParams(Object.entries(init.form).map(([k, v]) => [k, String(v)])).toString() : undefined;
    let current = url;
    for (let hop = 0; hop <= 5; hop++) {
      const headers: Record<string, string> = {
        "user-agent": this.options.userAgent,
        accept: "*/*",
        "accept-language": "he-IL,he;q=0.9,en;q=0.5",
        ...init.headers,
      };
      if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
      const cookie = this.jar.header(current);
      if (cookie) headers.cookie = cookie;
      const proxy = proxyFor(current, this.options.env);
      await this.options.pace?.(current);
      const response = await this.options.fetch(current, {
        method,
        headers,
        body,
        redirect: "manual",
        signal,
        proxy: proxy ?? false,
      } as RequestInit);
      this.jar.store(current, response);
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => {});
        current = new URL(location, current).toString();
        if (response.status !== 307 && response.status !== 308) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      return response;
    }
    throw new HttpError(`too many redirects from ${url}`, null, false);
  }

  /**
   * Runs `attempt` with a fresh timeout signal, retrying retryable failures with backoff.
   * Non-retryable HttpErrors (4xx, a login page…) are thrown at once.
   */
  async retry<T>(attempt: (signal: AbortSignal) => Promise<T>, timeoutMs = this.options.timeoutMs, outer?: AbortSignal): Promise<T> {
    let last: unknown;
    for (let i = 0; i <= this.options.retries; i++) {
      if (i > 0) {
        const base = this.options.backoffMs * 2 ** (i - 1);
        await sleep(base + Math.random() * base * 0.25);
      }
      const signal = outer ? AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      try {
        return await attempt(signal);
      } catch (error) {
        last = normaliseError(error, timeoutMs);
        if (outer?.aborted) throw last;
        if (last instanceof HttpError && !last.retryable) throw last;
      }
    }
    throw last;
  }

  /** GET/POST with retries; throws HttpError on a non-2xx status. Returns status, headers and text. */
  async text(url: string, init: RequestInitLite = {}): Promise<{ status: number; contentType: string; text: string; url: string }> {
    return this.retry(async (signal) => {
      const response = await this.send(url, init, init.signal ? AbortSignal.any([init.signal, signal]) : signal);
      const text = await response.text();
      const refused = refusal(response.status, text);
      if (refused) throw new BlockedError(`${refused} (${redact(url)})`, response.status);
      if (!response.ok) throw new HttpError(`HTTP ${response.status} from ${redact(url)}`, response.status, isRetryableStatus(response.status));
      // After manual redirects the final response carries the last URL requested.
      return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, url: response.url || url };
    }, init.timeoutMs);
  }

  /** Like `text`, then JSON.parse; a non-JSON answer is a (non-retryable) HttpError. */
  async json<T = unknown>(url: string, init: RequestInitLite = {}): Promise<T> {
    const { text } = await this.text(url, init);
    try {
      return JSON.parse(text.replace(/^\uFEFF/, "")) as T;
    } catch {
      throw new HttpError(`not JSON from ${redact(url)}: ${text.slice(0, 60).replace(/\s+/g, " ")}`, null, false);
    }
  }
}

function normaliseError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof HttpError) return error;
  const e = error as { name?: string; message?: string; code?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return new NoAnswerError(`timed out after ${timeoutMs} ms`);
  return new HttpError(`network error: ${e?.message ?? String(error)}`, null, true);
}

/**
 * Drops what may be secret from a URL shown in a message or log: the query string (signed
 * blob URLs carry their signature there) and any `user:password@`.
 * @example redact("https://u:p@blob.example/f.gz?sig=abc") // "https://***@blob.example/f.gz?…"
 */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, "$1***@").replace(/\?.*$/, "?…");
}
