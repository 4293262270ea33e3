import { requireCity } from "../../http/request/city-filter.ts";
import type { DataSet, Pacing } from "../../deps.ts";
import { invalidParameter } from "../../errors/api-error.ts";
import { formatIls } from "../../lib/time.ts";
import { roundKm, type Near } from "../../geo/distance.ts";
import { nearFilter } from "../../http/request/near-params.ts";
import { storeLocations, storesWithin } from "../../pricing/locations.ts";
import { productKey } from "../../identity/product-id.ts";
import { productError } from "../../identity/resolve.ts";
import { basketData } from "./basket-data.ts";
import { itemPricing, storeLine, type ChainLine } from "./item-pricing.ts";
import { priceEachStore, type BasketItem, type CandidateStore, type StorePricing } from "./store-pricing.ts";
import { JsonBytes, utf8 } from "../../http/prebuilt/json-bytes.ts";
import { AnswerCache, type Answered } from "../../serving/answer-cache.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import type { BasketBody } from "./model.ts";

export interface Priced {
  /** Until when the pricing holds (the next start or end of one of the items' promotions); Infinity when not known to end. */
  validUntil?: number;
  chainDbId: number;
  lines: ChainLine[];
  missing: string[];
  store?: { store_id: string; branch_name: string; city: string | null; region: string | null; distance_km?: number };
}

/**
 * Each item resolved to its product (src/identity/resolve.ts: `barcode` and optional `chain_id`);
 * items naming the same product (leading zeros aside) become one line with the summed quantity.
 * Unknown products stay as lines without a product (listed as missing); an ambiguous bare code
 * is 400 ambiguous_product naming the item.
 */
export function mergeItems(deps: DataSet, body: BasketBody): BasketItem[] {
  const data = basketData(deps);
  const byKey = new Map<string, BasketItem>();
  body.items.forEach((item, i) => {
    const resolved = data.product(item.barcode, item.chain_id);
    if (!resolved.ok && resolved.error !== "product_not_found") throw productError(resolved, item.barcode, `items[${i}].barcode`);
    const product = resolved.ok ? resolved.product : null;
    const key = product ? `#${product.id}` : `${productKey(item.barcode)}|${item.chain_id ?? ""}`;
    const existing = byKey.get(key);
    if (existing) existing.quantity += item.quantity;
    else byKey.set(key, { barcode: item.barcode, quantity: item.quantity, product });
  });
  return [...byKey.values()];
}

/**
 * Chain-wide pricing: each item at the chain price (chain_products.price_mode) with the
 * chain's active promotions that run in at least half of the chain's stores carrying the item
 * (priced per item and cached, see item-pricing.ts).
 */
function priceByChain(deps: DataSet, items: BasketItem[], chainFilter: Set<number> | null): Priced[] {
  const pricings = items.map((item) => (item.product ? itemPricing(deps, item.barcode, item.quantity, item.product) : null));
  const chains: number[] = [];
  const seen = new Set<number>();
  for (const pricing of pricings) {
    if (!pricing) continue;
    for (const chainDbId of pricing.byChain.keys()) {
      if (seen.has(chainDbId) || (chainFilter && !chainFilter.has(chainDbId))) continue;
      seen.add(chainDbId);
      chains.push(chainDbId);
    }
  }
  const validUntil = pricings.reduce((until, p) => Math.min(until, p?.validUntil ?? Infinity), Infinity);
  return chains.map((chainDbId) => {
    const lines: ChainLine[] = [];
    const missing: string[] = [];
    items.forEach((item, i) => {
      const line = pricings[i]?.byChain.get(chainDbId);
      if (line) lines.push(line);
      else missing.push(item.barcode);
    });
    return { chainDbId, lines, missing, validUntil };
  });
}

/** The stores a city or `near` basket prices: the city's, the ones within the radius, or both at once. */
export function candidateStores(deps: DataSet, city: string | undefined, near: Near | undefined): CandidateStore[] {
  if (!near) {
    return deps.db.prices.query(`SELECT id, chain_id, store_code, name, city, region FROM stores WHERE city = ? AND closed_at IS NULL`).all(city!) as CandidateStore[];
  }
  const out: CandidateStore[] = [];
  for (const [id, distance] of storesWithin(deps, near)) {
    const s = storeLocations(deps).byId.get(id)!;
    if (city !== undefined && s.city !== city) continue;
    out.push({ id, chain_id: s.chainDbId, store_code: s.storeCode, name: s.name, city: s.city, region: s.region, distance });
  }
  return out;
}

/**
 * Store pricing (a `city` or `near` basket): every candidate store priced exactly; per chain the
 * store with most items, then lowest total.
 */
function priceByStore(deps: DataSet, items: BasketItem[], stores: CandidateStore[], chainFilter: Set<number> | null): Priced[] {
  const inScope = stores.filter((s) => !chainFilter || chainFilter.has(s.chain_id));
  const best = new Map<number, StorePricing>();
  for (const priced of priceEachStore(deps, items, inScope)) {
    const current = best.get(priced.store.chain_id);
    if (!current || priced.found > current.found || (priced.found === current.found && priced.sum < current.sum)) best.set(priced.store.chain_id, priced);
  }
  return [...best.values()].map((priced) => storePriced(items, priced));
}

/** A store's pricing as a basket entry: its lines serialized, its missing items, the store named. */
export function storePriced(items: BasketItem[], { store, cells }: StorePricing): Priced {
  const lines: ChainLine[] = [];
  const missing: string[] = [];
  items.forEach((item, i) => {
    const cell = cells[i];
    if (cell) lines.push(storeLine(item.barcode, item.product!, item.quantity, cell.shelf, cell.promotions, cell.suspect));
    else missing.push(item.barcode);
  });
  return {
    chainDbId: store.chain_id,
    lines,
    missing,
    store: {
      store_id: store.store_code,
      branch_name: store.name ?? "",
      city: store.city || null,
      region: store.region || null,
      ...(store.distance === undefined ? {} : { distance_km: roundKm(store.distance) }),
    },
  };
}

/**
 * The median of each item's line total over the chains that sell it (chain prices, promotions
 * open to all): what a missing item adds to a chain's `estimated_total_ils`. Null for an item no
 * chain sells (or an unknown product).
 */
function medianLines(deps: DataSet, items: BasketItem[]): (number | null)[] {
  return items.map((item) => {
    if (!item.product) return null;
    const totals = [...itemPricing(deps, item.barcode, item.quantity, item.product).byChain.values()].map((l) => l.total).sort((a, b) => a - b);
    if (totals.length === 0) return null;
    const mid = totals.length >> 1;
    return totals.length % 2 ? totals[mid]! : Math.round((totals[mid - 1]! + totals[mid]!) / 2);
  });
}

/** Why a chain is left unranked: its coverage is under the request's `min_coverage`. */
const BELOW_MIN_COVERAGE = "coverage_below_minimum";

/**
 * POST /api/v1/basket/compare/: the basket's total per chain (or per chain's cheapest store in
 * a city), promotions open to all customers applied, ranked: chains meeting `min_coverage` first,
 * then most items found, then lowest total. `cheapest_store` is the first ranked chain whose lines
 * have no suspect price (else the first ranked, its `suspect_items` saying so).
 * Returns the answer's `data` as UTF-8 JSON: the lines come serialized from their cache, and a
 * 100-item basket over 30 chains is 3,000 of them.
 */
export function compareBasketJson(deps: DataSet, body: BasketBody): { json: Uint8Array; validUntil: number } {
  const chainRows = deps.db.prices.query("SELECT id, slug, name FROM chains").all() as { id: number; slug: string; name: string }[];
  const bySlug = new Map(chainRows.map((c) => [c.slug, c]));
  const byId = new Map(chainRows.map((c) => [c.id, c]));
  let chainFilter: Set<number> | null = null;
  if (body.chain_ids) {
    chainFilter = new Set();
    body.chain_ids.forEach((slug, i) => {
      const chain = bySlug.get(slug);
      if (!chain) throw invalidParameter(`chain_ids[${i}]`, `Unknown chain ${slug}; GET /api/v1/chains/ lists them.`);
      chainFilter!.add(chain.id);
    });
  }
  const items = mergeItems(deps, body);
  // A city in any spelling resolveCity knows (`תל אביב`, `ת"א`, a CBS code) means its stores.
  const near = nearFilter(body.near, body.radius_km);
  const byStore = body.city !== undefined || near !== undefined;
  const priced = byStore
    ? priceByStore(deps, items, candidateStores(deps, body.city === undefined ? undefined : requireCity(deps, body.city), near), chainFilter)
    : priceByChain(deps, items, chainFilter);
  const minCoverage = body.min_coverage ?? 0;
  const medians = medianLines(deps, items);
  const ranked = priced
    .map((p) => {
      let total = 0;
      let shelf = 0;
      let club = 0;
      p.lines.forEach((l) => {
        total += l.total;
        shelf += l.shelf;
        club += l.clubTotal;
      });
      // Lines come in the items' order, the missing items left out. Missing items are estimated at
      // the median of the chains that sell them; unknown when one is sold nowhere.
      const missing = new Set(p.missing);
      const suspect: string[] = [];
      const estimatedItems: string[] = [];
      let estimated: number | null = total;
      let at = 0;
      items.forEach((item, i) => {
        if (!missing.has(item.barcode)) {
          if (p.lines[at++]!.suspect) suspect.push(item.barcode);
          return;
        }
        estimatedItems.push(item.barcode);
        estimated = estimated === null || medians[i] === null ? null : estimated + medians[i]!;
      });
      const coverage = items.length === 0 ? 0 : p.lines.length / items.length;
      return { p, chain: byId.get(p.chainDbId)!, total, shelf, club, suspect, estimated: estimated as number | null, estimatedItems, coverage, isRanked: coverage >= minCoverage };
    })
    .sort(
      (a, b) =>
        Number(b.isRanked) - Number(a.isRanked) ||
        b.p.lines.length - a.p.lines.length ||
        a.total - b.total ||
        a.chain.name.localeCompare(b.chain.name, "he") ||
        a.chain.slug.localeCompare(b.chain.slug),
    );
  const cheapest = ranked.find((r) => r.isRanked && r.suspect.length === 0) ?? ranked.find((r) => r.isRanked);
  const out = new JsonBytes();
  out.text(`{"cheapest_store":${JSON.stringify(cheapest?.chain.slug ?? null)},"stores":[`);
  ranked.forEach(({ p, chain, total, shelf, club, suspect, estimated, estimatedItems, coverage, isRanked }, i) => {
    out.text(
      `${i ? "," : ""}{"chain_id":${JSON.stringify(chain.slug)},"chain_name":${JSON.stringify(chain.name)},"total_ils":"${formatIls(total)}","shelf_total_ils":"${formatIls(shelf)}",` +
        `"club_total_ils":"${formatIls(club)}","coverage":${Math.round(coverage * 10_000) / 10_000},` +
        `"estimated_total_ils":${estimated === null ? "null" : `"${formatIls(estimated)}"`},"estimated_items":${JSON.stringify(estimatedItems)},` +
        `"ranked":${isRanked},"not_ranked_reason":${isRanked ? "null" : `"${BELOW_MIN_COVERAGE}"`},"suspect_items":${JSON.stringify(suspect)},` +
        `"items_found":${p.lines.length},"items_total":${items.length},"items":[`,
    );
    p.lines.forEach((line, j) => {
      if (j) out.bytes(COMMA);
      out.bytes(line.json);
    });
    out.text(`],"missing_items":${JSON.stringify(p.missing)}${p.store ? `,"store":${JSON.stringify(p.store)}` : ""}}`);
  });
  const missing = items.filter((i) => !i.product).map((i) => i.barcode);
  // City and near baskets price stores exactly and are not cached (validUntil 0).
  const validUntil = byStore ? 0 : priced.reduce((until, p) => Math.min(until, p.validUntil ?? Infinity), Infinity);
  return { json: out.text(`],"missing_items":${JSON.stringify(missing)}}`).finish(), validUntil };
}

const BASKET_BYTES = 32 * 2 ** 20;

declare module "../../deps.ts" {
  interface AnswerCaches {
    basket: AnswerCache<PrebuiltJson>;
  }
}

/** A data set's chain-wide basket answers (createServices builds one per data set). */
export function basketAnswers(pacing: Pacing): AnswerCache<PrebuiltJson> {
  return AnswerCache.of<PrebuiltJson>(pacing, BASKET_BYTES, "basket");
}

/**
 * Chain-wide basket answers cached whole per body and data version (shopping apps send the same
 * lists; one answer of 20 items over 30 chains is ~100 KB to assemble), so after an import a busy
 * server can serve the previous version's whole answer while it recomputes (see AnswerCache) —
 * never lines of two versions in one answer. City baskets are computed every time.
 * @example cachedBasket(deps, { items: [{ barcode: "7290000066318", quantity: 2 }] }).value.size // 1234
 */
export function cachedBasket(deps: DataSet, body: BasketBody): Answered<PrebuiltJson> {
  if (body.city !== undefined || body.near !== undefined) return { value: PrebuiltJson.fromBytes(compareBasketJson(deps, body).json), snapshot: deps.data.current, stale: false };
  const cache = deps.answers.basket;
  return cache.get(deps, JSON.stringify(body), () => {
    const { json, validUntil } = compareBasketJson(deps, body);
    return { value: PrebuiltJson.fromBytes(json), validUntil, weight: json.length };
  });
}

const COMMA = utf8(",");
