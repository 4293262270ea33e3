/**
 * Every operation of the OpenAPI document called through a client generated from it
 * (openapi-typescript types, openapi-fetch), with valid and invalid input. Type-checked by tsc in
 * the contract test: an operation, parameter or body member the document no longer has, or of
 * another type, fails the build of this file. The answers are checked against the document by
 * the contract test (contract.test.ts), which records them with a middleware.
 */
import type { Client } from "openapi-fetch";
import type { paths } from "./openapi.d.ts";

export interface Keys {
  /** sk_live_ of a Pro account. */
  pro: string;
  /** sk_live_ of a Free account. */
  free: string;
  /** pk_live_ allowing any origin. */
  publishable: string;
  /** A date of an export on disk. */
  exportDate: string;
  /** A file of that export. */
  exportFile: string;
}

const MCP_ACCEPT = "application/json, text/event-stream";

export async function callEveryOperation(api: Client<paths>, keys: Keys): Promise<void> {
  const pro = { "X-API-Key": keys.pro };
  const free = { "X-API-Key": keys.free };

  // Search: a name with a comma, a quote and a plus sign is text.
  const found = await api.GET("/api/v1/product-search", { params: { query: { q: "חלב, 3%", limit: 5 } }, headers: pro });
  if (!found.data || found.data.data.length === 0) throw new Error(`search found nothing: ${JSON.stringify(found.error)}`);
  const item = found.data.data[0]!;
  const product = { barcode: item.barcode, ...(item.chain_id ? { chain_id: item.chain_id } : {}) };
  await api.GET("/api/v1/product-search", { params: { query: { q: 'במבה "אסם" [1]; a+b' } }, headers: pro });
  await api.GET("/api/v1/product-search", { params: { query: { q: "חלב", cursor: "not-a-cursor" } }, headers: pro });
  await api.GET("/api/v1/product-search", { params: { query: { q: "חלב", chain_id: "no-such-chain" } }, headers: pro });
  await api.GET("/api/v1/product-search", { params: { query: { q: "חלב", limit: 0 } }, headers: pro });
  if (found.data.meta.next_cursor) await api.GET("/api/v1/product-search", { params: { query: { q: "חלב, 3%", limit: 5, cursor: found.data.meta.next_cursor } }, headers: pro });

  // Prices, with every filter, and errors.
  const prices = await api.GET("/api/v1/prices", { params: { query: { ...product, granularity: "store" } }, headers: pro });
  const etag = prices.response.headers.get("etag") ?? "";
  await api.GET("/api/v1/prices", { params: { query: { ...product }, header: { "If-None-Match": etag } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product, granularity: "store" }, header: { "If-None-Match": etag } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product }, header: { "If-None-Match": "*" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product, city: "תל אביב, יפו", region: "tel-aviv" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product, granularity: "store", near: "32.0853,34.7818", radius_km: 50 } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product, city: "עיר שאיננה, קיימת" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { barcode: "7290000000001" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { barcode: "[1]" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product, chain_id: "no-such-chain" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product, near: "0,0" } }, headers: pro });
  await api.GET("/api/v1/prices", { params: { query: { ...product } } });
  await api.GET("/api/v1/prices", { params: { query: { ...product } }, headers: { "X-API-Key": keys.publishable } });

  // Batch.
  await api.POST("/api/v1/prices/batch", { body: { items: [product, { barcode: "7290000000001" }], city: "חיפה" }, headers: pro });
  await api.POST("/api/v1/prices/batch", { body: { items: [] }, headers: pro });
  await api.POST("/api/v1/prices/batch", { body: { items: [product], city: "עיר שאיננה" }, headers: pro });

  // History (Basic).
  await api.GET("/api/v1/prices/{barcode}/history", { params: { path: { barcode: item.barcode }, query: { months: 6, ...(item.chain_id ? { chain_id: item.chain_id } : {}) } }, headers: pro });
  await api.GET("/api/v1/prices/{barcode}/history", { params: { path: { barcode: item.barcode }, query: { months: 99 } }, headers: pro });
  await api.GET("/api/v1/prices/{barcode}/history", { params: { path: { barcode: item.barcode } }, headers: free });

  // Images.
  await api.GET("/images/products/{file}", { params: { path: { file: `${item.barcode.replace(/\D/g, "") || "7290000000001"}.svg` } }, parseAs: "text" });
  await api.GET("/images/products/{file}", { params: { path: { file: "7290000000001.svg" } }, parseAs: "text" });
  await api.GET("/images/products/{file}", { params: { path: { file: "nope.png" } }, parseAs: "text" });

  // Chains and catalogs.
  const chains = await api.GET("/api/v1/chains", { headers: pro });
  const chain = chains.data?.data.find((c) => c.product_count > 0)?.chain_id ?? "shufersal";
  await api.GET("/api/v1/chains", {});
  // The price index (Basic): everywhere, per region with history, errors.
  await api.GET("/api/v1/chains/price-index", { headers: pro });
  await api.GET("/api/v1/chains/price-index", { params: { query: { region: "center", months: 2 } }, headers: pro });
  await api.GET("/api/v1/chains/price-index", { params: { query: { city: "חיפה" } }, headers: pro });
  await api.GET("/api/v1/chains/price-index", { params: { query: { city: "עיר שאיננה" } }, headers: pro });
  await api.GET("/api/v1/chains/price-index", { params: { query: { months: 30 } }, headers: pro });
  await api.GET("/api/v1/chains/price-index", { headers: free });
  const page = await api.GET("/api/v1/chains/{id}/catalog", { params: { path: { id: chain }, query: { limit: 3, q: "חלב, 1%" } }, headers: pro });
  await api.GET("/api/v1/chains/{id}/catalog", { params: { path: { id: chain }, query: { limit: 3 } }, headers: pro });
  if (page.data?.meta.next_cursor) await api.GET("/api/v1/chains/{id}/catalog", { params: { path: { id: chain }, query: { limit: 3, q: "חלב, 1%", cursor: page.data.meta.next_cursor } }, headers: pro });
  await api.GET("/api/v1/chains/{id}/catalog", { params: { path: { id: "no-such-chain" } }, headers: pro });
  await api.GET("/api/v1/chains/{id}/catalog", { params: { path: { id: "Not A Slug" } }, headers: pro });
  await api.GET("/api/v1/chains/{id}/catalog", { params: { path: { id: chain } }, headers: free });

  // Stores.
  await api.GET("/api/v1/stores", { params: { query: { near: "32.0853,34.7818", radius_km: 20, limit: 5 } }, headers: pro });
  await api.GET("/api/v1/stores", { params: { query: { city: "חיפה", chain_id: chain } }, headers: pro });
  await api.GET("/api/v1/stores", { params: { query: { city: "מקום, שאינו" } }, headers: pro });
  await api.GET("/api/v1/stores", { params: { query: { radius_km: 3 } }, headers: pro });

  // Promotions (Pro).
  await api.GET("/api/v1/promos/feed", { params: { query: { limit: 5, include_club: "false" } }, headers: pro });
  await api.GET("/api/v1/promos/feed", { params: { query: { chain_id: chain, barcode: item.barcode } }, headers: pro });
  await api.GET("/api/v1/promos/feed", { params: { query: { store_id: "x1" } }, headers: pro });
  await api.GET("/api/v1/promos/feed", { headers: free });

  // Basket (Pro).
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 2 }] }, headers: pro });
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 1 }], city: "חיפה" }, headers: pro });
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 1 }], city: "כפר, לא קיים" }, headers: pro });
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 0 }] }, headers: pro });
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 1 }] }, headers: free });
  // Stores ranked (granularity "store"), and the plan (Pro).
  const tlv = "32.0853,34.7818";
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 2 }], granularity: "store", near: tlv, radius_km: 10, min_coverage: 0.5, limit: 5 }, headers: pro });
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 1 }], granularity: "store", city: "חיפה" }, headers: pro });
  await api.POST("/api/v1/basket/compare", { body: { items: [{ ...product, quantity: 1 }], granularity: "store" }, headers: pro });
  await api.POST("/api/v1/basket/plan", { body: { items: [{ ...product, quantity: 2 }, { barcode: "7290000000001", quantity: 1 }], near: tlv, radius_km: 10, max_stores: 2 }, headers: pro });
  await api.POST("/api/v1/basket/plan", { body: { items: [{ ...product, quantity: 1 }], near: tlv, max_stores: 4 }, headers: pro });
  await api.POST("/api/v1/basket/plan", { body: { items: [{ ...product, quantity: 1 }], near: tlv, max_stores: 1 }, headers: free });

  // Widget data (publishable key in the query or the header).
  await api.GET("/api/v1/widget/data", { params: { query: { ...product, key: keys.publishable } } });
  await api.GET("/api/v1/widget/data", { params: { query: { ...product } }, headers: { "X-API-Key": keys.publishable, Origin: "https://shop.example" } });
  await api.GET("/api/v1/widget/data", { params: { query: { barcode: "7290000000001", key: keys.publishable } } });
  await api.GET("/api/v1/widget/data", { params: { query: { ...product } }, headers: pro });

  // Alerts (Pro, live keys).
  const created = await api.POST("/api/v1/alerts", { body: { url: "https://127.0.0.1/hook", ...product, city: "חיפה", condition: { below_ils: "1.00" } }, headers: pro });
  await api.POST("/api/v1/alerts", { body: { url: "https://127.0.0.1/hook", ...product, condition: { drop_pct: 10 } }, headers: pro });
  await api.POST("/api/v1/alerts", { body: { url: "not a url", ...product, condition: { promotion: true } }, headers: pro });
  await api.POST("/api/v1/alerts", { body: { url: "https://127.0.0.1/hook", ...product, condition: { promotion: true } }, headers: free });
  const id = created.data?.data.id ?? "alt_missing";
  await api.GET("/api/v1/alerts", { params: { query: { limit: 1 } }, headers: pro });
  await api.GET("/api/v1/alerts", { params: { query: { cursor: "@@@" } }, headers: pro });
  await api.GET("/api/v1/alerts/{id}", { params: { path: { id } }, headers: pro });
  await api.GET("/api/v1/alerts/{id}", { params: { path: { id: "alt_00000000000000000000" } }, headers: pro });
  await api.POST("/api/v1/alerts/{id}/test", { params: { path: { id } }, headers: pro });
  await api.POST("/api/v1/alerts/{id}/test", { params: { path: { id: "alt_00000000000000000000" } }, headers: pro });
  await api.GET("/api/v1/alerts/{id}/deliveries", { params: { path: { id }, query: { limit: 5 } }, headers: pro });
  await api.GET("/api/v1/alerts/{id}/deliveries", { params: { path: { id }, query: { limit: 500 } }, headers: pro });
  await api.DELETE("/api/v1/alerts/{id}", { params: { path: { id } }, headers: pro });
  await api.DELETE("/api/v1/alerts/{id}", { params: { path: { id } }, headers: pro });

  // Exports (Pro, live keys).
  await api.GET("/api/v1/exports", { headers: pro });
  await api.GET("/api/v1/exports", { headers: free });
  await api.GET("/api/v1/exports/{date}/{file}", { params: { path: { date: keys.exportDate, file: keys.exportFile } }, headers: pro, parseAs: "arrayBuffer" });
  await api.GET("/api/v1/exports/{date}/{file}", { params: { path: { date: keys.exportDate, file: "manifest.json" } }, headers: pro });
  await api.GET("/api/v1/exports/{date}/{file}", { params: { path: { date: "2001-01-01", file: keys.exportFile } }, headers: pro });
  await api.GET("/api/v1/exports/{date}/{file}", { params: { path: { date: "yesterday", file: keys.exportFile } }, headers: pro });

  // MCP (JSON-RPC).
  await api.POST("/mcp", { body: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: { ...pro, Accept: MCP_ACCEPT } });
  await api.POST("/mcp", {
    body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_products", arguments: { query: "חלב, 3%" } } },
    headers: { Authorization: `Bearer ${keys.pro}`, Accept: MCP_ACCEPT },
  });
  await api.POST("/mcp", { body: { jsonrpc: "2.0", method: "notifications/initialized" }, headers: { ...pro, Accept: MCP_ACCEPT } });
  await api.POST("/mcp", { body: { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers: { ...pro, Accept: "text/html" } });
  await api.POST("/mcp", { body: { jsonrpc: "2.0", id: 4, method: "tools/list" }, headers: { Accept: MCP_ACCEPT } });

  // Probes: public. (Metrics are served on a listener of their own, outside the API's document.)
  await api.GET("/healthz", {});
  await api.GET("/readyz", {});
  await api.GET("/", {});
}
