import type { DataSet } from "../../deps.ts";
import { invalidParameter } from "../../errors/api-error.ts";
import { requireCity } from "../../http/request/city-filter.ts";
import { nearFilter } from "../../http/request/near-params.ts";
import { JsonBytes, utf8 } from "../../http/prebuilt/json-bytes.ts";
import { formatIls } from "../../lib/time.ts";
import { storeTable } from "../../pricing/store-table.ts";
import { candidateStores, mergeItems, storePriced } from "./service.ts";
import { priceEachStore } from "./store-pricing.ts";
import type { BasketBody } from "./model.ts";

/** Stores answered when the request gives no `limit`. */
export const DEFAULT_STORE_LIMIT = 10;

/**
 * POST /api/v1/basket/compare/ with `granularity: "store"`: every store of the city, or open
 * store with a shop floor within the radius of `near`, priced exactly (store-pricing.ts); those
 * selling at least `min_coverage` of the items (coverage = items it sells ÷ items) ranked — most
 * items found, then lowest total, then nearest, then chain and store code — and the first `limit`
 * answered. Returns the answer's `data` as UTF-8 JSON.
 */
export function compareStoresJson(deps: DataSet, body: BasketBody): Uint8Array {
  const near = nearFilter(body.near, body.radius_km);
  if (near === undefined && body.city === undefined) throw invalidParameter("near", 'granularity "store" ranks the stores near a point or in a city: send `near` (with `radius_km`) or `city`.');
  const table = storeTable(deps);
  let chainFilter: Set<number> | null = null;
  if (body.chain_ids) {
    chainFilter = new Set();
    body.chain_ids.forEach((slug, i) => {
      const id = table.chainIdOf?.(slug) ?? null;
      if (id === null) throw invalidParameter(`chain_ids[${i}]`, `Unknown chain ${slug}; GET /api/v1/chains/ lists them.`);
      chainFilter!.add(id);
    });
  }
  const items = mergeItems(deps, body);
  const stores = candidateStores(deps, body.city === undefined ? undefined : requireCity(deps, body.city), near).filter((s) => !chainFilter || chainFilter.has(s.chain_id));
  const minCoverage = body.min_coverage ?? 0;
  const ranked = priceEachStore(deps, items, stores)
    .filter((p) => p.found / items.length >= minCoverage)
    .sort(
      (a, b) =>
        b.found - a.found ||
        a.sum - b.sum ||
        (a.store.distance ?? Infinity) - (b.store.distance ?? Infinity) ||
        table.chains.get(a.store.chain_id)!.slug.localeCompare(table.chains.get(b.store.chain_id)!.slug) ||
        a.store.store_code.length - b.store.store_code.length ||
        a.store.store_code.localeCompare(b.store.store_code),
    );
  const shown = ranked.slice(0, body.limit ?? DEFAULT_STORE_LIMIT);
  const first = shown[0];
  const out = new JsonBytes();
  const cheapest = first ? { chain_id: table.chains.get(first.store.chain_id)!.slug, store_id: first.store.store_code } : null;
  out.text(`{"granularity":"store","cheapest_store":${JSON.stringify(cheapest)},"stores":[`);
  shown.forEach((pricing, i) => {
    const chain = table.chains.get(pricing.store.chain_id)!;
    const priced = storePriced(items, pricing);
    let total = 0;
    let shelf = 0;
    for (const l of priced.lines) {
      total += l.total;
      shelf += l.shelf;
    }
    out.text(
      `${i ? "," : ""}{"chain_id":${JSON.stringify(chain.slug)},"chain_name":${JSON.stringify(chain.name)},"store":${JSON.stringify(priced.store)},"total_ils":"${formatIls(total)}","shelf_total_ils":"${formatIls(shelf)}",` +
        `"items_found":${priced.lines.length},"items_total":${items.length},"coverage":${Math.round((priced.lines.length / items.length) * 10_000) / 10_000},"items":[`,
    );
    priced.lines.forEach((line, j) => {
      if (j) out.bytes(COMMA);
      out.bytes(line.json);
    });
    out.text(`],"missing_items":${JSON.stringify(priced.missing)}}`);
  });
  const missing = items.filter((i) => !i.product).map((i) => i.barcode);
  return out.text(`],"stores_compared":${ranked.length},"missing_items":${JSON.stringify(missing)}}`).finish();
}

const COMMA = utf8(",");
