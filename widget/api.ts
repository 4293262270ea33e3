import type { FetchResult, WidgetData } from "./types.ts";

/** A key as the portal lists it: its prefix and last four characters (never the whole key in a log). */
export const key4 = (key: string) => `${key.slice(0, 12)}…${key.slice(-4)}`;

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * Loads widget data, one request per barcode and key however many elements ask: callers share
 * the in-flight (and then settled) promise. A network or server failure is forgotten so an
 * element added later tries again.
 */
export class DataClient {
  private readonly pending = new Map<string, Promise<FetchResult>>();
  /** When the next retry after a 429 rate_limited may go out (ms since epoch). */
  private nextSlot = 0;

  constructor(
    private readonly base: string,
    private readonly fetchImpl: FetchLike = (url, init) => fetch(url, init),
    private readonly sleep: (ms: number) => Promise<unknown> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    private readonly now: () => number = Date.now,
  ) {}

  load(barcode: string, key: string, chainId = ""): Promise<FetchResult> {
    const id = barcode + "\n" + chainId + "\n" + key;
    let promise = this.pending.get(id);
    if (!promise) {
      promise = this.request(barcode, key, chainId).then((result) => {
        if (result.kind === "error") this.pending.delete(id);
        return result;
      });
      this.pending.set(id, promise);
    }
    return promise;
  }

  /** The key travels in the query string: a simple GET, so the browser sends no preflight. */
  private async request(barcode: string, key: string, chainId: string, tries = 0): Promise<FetchResult> {
    try {
      const chain = chainId ? `&chain_id=${encodeURIComponent(chainId)}` : "";
      const url = `${this.base}/api/v1/widget/data/?barcode=${encodeURIComponent(barcode)}${chain}&key=${encodeURIComponent(key)}`;
      let res: Response;
      try {
        res = await this.fetchImpl(url, { credentials: "omit" });
      } catch {
        return { kind: "error", why: `cannot reach ${this.base} (the server is down, or the loader's address is wrong, or a blocker stopped it)` };
      }
      const body = await res.json().catch(() => null);
      const code = body && typeof body.code === "string" ? body.code : "";
      const named = `key ${key4(key)}`;
      if (res.status === 403 && code === "origin_not_allowed") {
        return { kind: "key", why: `${named} is not allowed on ${location.origin}: add this origin to the key's allowed origins in the portal (${this.base}/portal/)` };
      }
      if (res.status === 401) return { kind: "key", why: `${named} is unknown or revoked (401 ${code}): create a publishable key in the portal (${this.base}/portal/)` };
      if (res.status === 403) return { kind: "key", why: `${named} was refused (403 ${code})` };
      // A page with more products than the per-address burst: wait as told and retry, the retries
      // spaced to the announced rate (X-RateLimit-Limit per minute). Not for quota_exceeded.
      const wait = Number(res.headers.get("retry-after"));
      if (res.status === 429 && body && body.code === "rate_limited" && wait > 0 && wait <= 60 && tries < 8) {
        const spacing = 60000 / (Number(res.headers.get("x-ratelimit-limit")) || 60);
        const now = this.now();
        this.nextSlot = Math.max(now + wait * 1000, this.nextSlot + spacing);
        await this.sleep(this.nextSlot - now);
        return this.request(barcode, key, chainId, tries + 1);
      }
      if (res.status === 404 && code === "product_not_found") return { kind: "not_found", why: `no product with barcode ${barcode}${chainId ? ` of chain ${chainId}` : ""} (404): check data-barcode` };
      const data = res.ok && body ? (body.data as WidgetData | undefined) : undefined;
      if (!data || typeof data.name !== "string" || !Array.isArray(data.prices)) return { kind: "error", why: res.ok ? `${this.base} answered without widget data: is it a mehir server?` : `${this.base} answered ${res.status} ${code}` };
      return { kind: "ok", data };
    } catch {
      return { kind: "error" };
    }
  }
}
