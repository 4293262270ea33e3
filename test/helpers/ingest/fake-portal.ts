import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRegistry, type Registry } from "../../../src/registry.ts";
import { openMemory } from "../../../src/db/open.ts";
import type { HttpOptions } from "../../../src/ingest/sources/http.ts";

/** A loopback fake portal: routes by method + path, logs every request. */
export interface FakePortal {
  url: string;
  requests: { method: string; path: string; search: string; cookie: string | null; body: string; ua: string | null }[];
  stop(): void;
}

export type Handler = (req: Request, url: URL, body: string) => Response | Promise<Response>;

export function startFakePortal(handler: Handler): FakePortal {
  const requests: FakePortal["requests"] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 5,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "POST" ? await req.text() : "";
      requests.push({ method: req.method, path: url.pathname, search: url.search, cookie: req.headers.get("cookie"), body, ua: req.headers.get("user-agent") });
      return handler(req, url, body);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/**
 * Proxy-free HTTP settings for tests: no wait between retries nor between requests to one host
 * (tests of the per-portal spacing set their own `pace`), and timeouts long enough for a
 * loopback answer on a loaded 2-core machine (tests of timeouts set their own, against a handler
 * that never answers: see `never`).
 */
export const FAST_HTTP: Partial<HttpOptions> = { timeoutMs: 15_000, downloadTimeoutMs: 15_000, retries: 2, backoffMs: 1, env: {}, pace: async () => {} };

/** A handler's wait for an answer that never comes: until the client gives up (aborts the request). */
export function never(req: Request): Promise<never> {
  return new Promise((_, reject) => req.signal.addEventListener("abort", () => reject(new Error("client gave up"))));
}

export const DAY = "2026-11-22";
export const NOW = () => new Date("2026-11-22T10:00:00+02:00");

// The temp folders the importing test file made, removed after its last test. The hook is
// registered when the file imports this module, which `npm test` (--parallel, a fresh module
// registry per file) does once per file.
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new temp folder, removed after the importing test file's last test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mehir-fetch-"));
  madeDirs.push(dir);
  return dir;
}

export function memoryPrices() {
  return openMemory().prices;
}

/** A registry of one or more chains pointing at fake portals. */
export function registryOf(...chains: Record<string, unknown>[]): Registry {
  return buildRegistry(chains.map((c) => ({ name: "רשת", name_en: "Chain", ...c })));
}

const enc = new TextEncoder();

/** A small PriceFull in the Cerberus dialect, gzipped. */
export function priceFullGz(chainCode: string, store: string, items = 2): Uint8Array<ArrayBuffer> {
  const rows = Array.from({ length: items }, (_, i) => `<Item><ItemCode>72900000${String(i).padStart(5, "0")}</ItemCode><ItemName>מוצר ${i}</ItemName><ItemPrice>${5 + i}.90</ItemPrice></Item>`).join("");
  return Bun.gzipSync(enc.encode(`\uFEFF<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${chainCode}</ChainId><StoreId>${store}</StoreId><Items Count="${items}">${rows}</Items></Root>`));
}

export function storesXml(chainCode: string): Uint8Array<ArrayBuffer> {
  return enc.encode(`<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${chainCode}</ChainId><SubChains><SubChain><SubChainId>1</SubChainId><Stores><Store><StoreId>1</StoreId><StoreName>סניף</StoreName><City>5000</City></Store></Stores></SubChain></SubChains></Root>`);
}

export function promoFullGz(chainCode: string, store: string): Uint8Array<ArrayBuffer> {
  return Bun.gzipSync(enc.encode(`<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${chainCode}</ChainId><StoreId>${store}</StoreId><Promotions Count="0"></Promotions></Root>`));
}

/** A ZIP archive (stored, one entry) — what Bina serves under a `.gz` name. */
export function zipOf(entryName: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const name = enc.encode(entryName);
  const crc = Bun.hash.crc32(data);
  const local = new DataView(new ArrayBuffer(30));
  local.setUint32(0, 0x04034b50, true);
  local.setUint16(4, 20, true);
  local.setUint32(14, crc, true);
  local.setUint32(18, data.length, true);
  local.setUint32(22, data.length, true);
  local.setUint16(26, name.length, true);
  const central = new DataView(new ArrayBuffer(46));
  central.setUint32(0, 0x02014b50, true);
  central.setUint16(4, 20, true);
  central.setUint16(6, 20, true);
  central.setUint32(16, crc, true);
  central.setUint32(20, data.length, true);
  central.setUint32(24, data.length, true);
  central.setUint16(28, name.length, true);
  const centralOffset = 30 + name.length + data.length;
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, 1, true);
  end.setUint16(10, 1, true);
  end.setUint32(12, 46 + name.length, true);
  end.setUint32(16, centralOffset, true);
  const parts = [new Uint8Array(local.buffer), name, data, new Uint8Array(central.buffer), name, new Uint8Array(end.buffer)];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const bytesResponse = (bytes: Uint8Array, type = "application/octet-stream") => new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } });
export const htmlResponse = (html: string, status = 200) => new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8" } });
export const jsonResponse = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });

export function healthOf(db: ReturnType<typeof memoryPrices>, slug: string) {
  return db.query("SELECT * FROM chain_health WHERE chain_slug = ?").get(slug) as {
    last_attempt_at: string | null;
    last_success_at: string | null;
    files_fetched: number;
    last_error: string | null;
  } | null;
}
