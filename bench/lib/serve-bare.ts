/**
 * Child process of the benches: the baseline, a bare `Bun.serve` on loopback with two JSON
 * endpoints serialized per request — `/small` (a few hundred bytes) and `/answer` (an object of
 * the same shape and size as a chain-granularity /prices/ answer: 30 entries, Hebrew names,
 * ≈11 KB). Writes `{ url, pid }` to --ready-file.
 */
import { option } from "./args.ts";

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

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    return Response.json(path === "/answer" ? answer : small);
  },
});
await Bun.write(readyFile, JSON.stringify({ url: `http://127.0.0.1:${server.port}`, pid: process.pid }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
