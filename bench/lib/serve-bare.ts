/**
 * Child process of the benches: the baseline, a bare `Bun.serve` on loopback with two JSON
 * endpoints serialized per request — `/small` (a few hundred bytes) and `/answer` (an object of
 * the same shape and size as a chain-granularity /prices/ answer: 30 entries, Hebrew names,
 * ≈11 KB). Writes `{ url, pid }` to --ready-file.
 *
 * And the steps from the small JSON to the prices answer's shape, for bench/runtime-floor.ts:
 * `/bytes` (a gzip-sized 1,137-byte body, as bytes), `/headers` (the same with the prices
 * answer's 12 headers, one Headers object updated in place as the server's fast lane does), `/peer`
 * (and the client's address read, a `getpeername`), `/reads` (and the six request headers the
 * access layer reads), `/fused?barcode=` (and the contract's per-request work written as one
 * function: bench/lib/fused-answer.ts).
 */
import { option } from "./args.ts";
import { fusedAnswer, stopFusedLog } from "./fused-answer.ts";

const readyFile = option(process.argv.slice(2), "ready-file");
if (!readyFile) throw new Error("serve-bare: --ready-file is required");

const small = { data: { barcode: "7290000066318", name: "חלב תנובה 3% 1 ליטר", price_ils: "6.90" }, meta: { data_updated_at: "2026-11-22T05:30:00+02:00" } };
const answer = {
  data: {
    barcode: "7290000066318",
    name: "חלב תנובה 3% קרטון 1 ליטר",
    manufacturer: "תנובה",
    category: "חלב ומוצריו",
    unit_qty: "ליטר",
    size: 1000,
    unit: "ml",
    prices: Array.from({ length: 30 }, (_, i) => ({
      chain_id: `chain-number-${i}`,
      chain_name: `רשת מספר ${i} בע"מ`,
      granularity: "chain",
      price_ils: `${6 + (i % 4)}.90`,
      effective_price_ils: `${6 + (i % 4)}.90`,
      min_price_ils: "5.90",
      max_price_ils: "9.90",
      store_count: 40 + i,
      currency: "ILS",
      vat_included: true,
      vat_rate: 0.18,
      collected_at: "2026-11-22T05:30:00+02:00",
      is_on_promotion: i % 3 === 0,
      price_per_measure_ils: "0.69",
      measure: "100ml",
    })),
  },
  meta: { data_updated_at: "2026-11-22T05:30:00+02:00", source: "demo", request_id: "req_0123456789abcdef0123456789abcdef" },
};

/** A /prices/ answer's size under gzip, and its headers (as `GET /api/v1/prices/?barcode=` sends them, but Date and Content-Length). */
const answerBytes = new Uint8Array(1137).fill(0x41);
const answerHeaders = new Headers({
  "x-request-id": "req_dc4b8a0870a947490000000000000001",
  "x-ratelimit-limit": "100000000",
  "x-ratelimit-remaining": "24999999",
  "x-ratelimit-reset": "1",
  "x-quota-limit": "1000000000",
  "x-quota-remaining": "999999998",
  etag: 'W/"1-e8125e1135348493"',
  "last-modified": "Sun, 29 Nov 2026 12:34:17 GMT",
  "cache-control": "private, max-age=300",
  "content-type": "application/json;charset=utf-8",
  "content-encoding": "gzip",
  vary: "Accept-Encoding",
});
const READ_HEADERS = ["if-none-match", "origin", "x-api-key", "x-request-id", "accept-encoding", "if-none-match"];
let answered = 0;
/** The prices answer's `data` for a barcode (≈11 KB of JSON, ≈1.1 KB deflated), for /fused. */
const answerBody = (barcode: string) => JSON.stringify({ ...answer.data, barcode });

/** The answer-shaped bytes with the answer's headers, its per-request values set in place. */
function shaped(): Response {
  answered++;
  answerHeaders.set("x-request-id", `req_dc4b8a0870a94749${answered.toString(16).padStart(16, "0")}`);
  answerHeaders.set("x-quota-remaining", String(1_000_000_000 - answered));
  return new Response(answerBytes, { headers: answerHeaders });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request, server) {
    const path = new URL(request.url).pathname;
    switch (path) {
      case "/answer":
        return Response.json(answer);
      case "/bytes":
        return new Response(answerBytes, { headers: { "content-type": "application/json;charset=utf-8" } });
      case "/headers":
        return shaped();
      case "/peer":
        server.requestIP(request);
        return shaped();
      case "/reads": {
        server.requestIP(request);
        let present = 0;
        for (const name of READ_HEADERS) if (request.headers.get(name) !== null) present++;
        return present < 0 ? new Response(null) : shaped();
      }
      case "/fused":
        return fusedAnswer(request, server.requestIP(request)?.address ?? "", answerBody);
      default:
        return Response.json(small);
    }
  },
});
await Bun.write(readyFile, JSON.stringify({ url: `http://127.0.0.1:${server.port}`, pid: process.pid }));
process.on("SIGTERM", () => {
  server.stop(true);
  stopFusedLog();
  process.exit(0);
});
