import type { DataSet, Pacing, PricingData } from "../../deps.ts";
import { ApiError } from "../../errors/api-error.ts";
import { formatIls } from "../../lib/time.ts";
import { pricePerMeasure, vatRate } from "../../pricing/rules.ts";
import { requireProduct as resolveOrThrow } from "../../identity/resolve.ts";
import { barcodeKey, type ProductRow } from "../../pricing/queries.ts";
import { AnswerCache, type Answered } from "../../serving/answer-cache.ts";
import type { HeldEntry } from "../../serving/result-cache.ts";
import type { DataSnapshot } from "../../data/data-state.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { chainSummary } from "../../pricing/chain-summary.ts";
import { stmt } from "../../db/statements.ts";
import { GENERIC_SCOPE } from "../../identity/resolve.ts";
import { storeFilterOf, type PriceQuery } from "../../pricing/store-filter.ts";
import { chainPricesOf, suspectReason, type SuspectReason } from "../../pricing/suspect.ts";
import { recentLows } from "../../pricing/recent-low.ts";
import { storeTable } from "../../pricing/store-table.ts";
import { roundKm } from "../../geo/distance.ts";
import { hebrew, sortChains, storeFiguresUntil, type ChainFigure, type StoreFigure } from "../../pricing/figures.ts";
import { storeEntryParts } from "./store-entry-json.ts";
import { pageOf, storeEntries, storeEntriesWeight, type StoreEntries } from "./store-answer.ts";
import { decodeCursor, encodeCursor } from "../../http/encoding/cursor.ts";


export type { PriceQuery } from "../../pricing/store-filter.ts";

/**
 * The product a client names by `barcode` and optional `chain_id` (see resolveProduct in
 * src/identity/resolve.ts), or the ApiError: 400 invalid_parameter / ambiguous_product, 404 product_not_found.
 */
export function requireProduct(deps: Pick<PricingData, "db">, barcode: string, chainId?: string, param = "barcode"): ProductRow {
  return resolveOrThrow(deps.db.prices, { barcode, chain_id: chainId }, param);
}

function measureFields(agorot: number, product: ProductRow) {
  const per = pricePerMeasure(agorot, product.size_amount, product.size_unit);
  return { price_per_measure_ils: per ? formatIls(per.agorot) : null, measure: per ? per.measure : null };
}

/** What an entry says beyond its figures: the 30-day low and whether the price looks like a data error (see src/pricing/suspect.ts). */
export interface EntryNotes {
  /** Lowest shelf price in the 30 days before today, agorot (src/pricing/recent-low.ts); null when unknown. */
  lowest: number | null;
  suspect: SuspectReason | null;
}

const NO_NOTES: EntryNotes = { lowest: null, suspect: null };

/** The fields every price entry carries beside its figures. */
function noteFields(club: number | null, notes: EntryNotes, product: ProductRow) {
  return {
    club_price_ils: club === null ? null : formatIls(club),
    lowest_price_30d_ils: notes.lowest === null ? null : formatIls(notes.lowest),
    suspect: notes.suspect !== null,
    suspect_reason: notes.suspect,
    // Loose produce (a generic product) says how it is sold: per kg, or per unit.
    ...(product.scope_chain_id === GENERIC_SCOPE ? { sold_by: product.is_weighted === 1 ? ("kg" as const) : ("unit" as const) } : {}),
  };
}

/** The chain-granularity price entry of the API. */
export function chainEntry(c: ChainFigure, product: ProductRow, notes: EntryNotes = NO_NOTES) {
  return {
    chain_id: c.chainSlug,
    chain_name: c.chainName,
    granularity: "chain" as const,
    price_ils: formatIls(c.price),
    effective_price_ils: formatIls(c.effective),
    min_price_ils: formatIls(c.min),
    max_price_ils: formatIls(c.max),
    store_count: c.storeCount,
    currency: "ILS" as const,
    vat_included: !c.eilatOnly,
    vat_rate: vatRate(c.collectedAt.slice(0, 10), c.eilatOnly),
    collected_at: c.collectedAt,
    is_on_promotion: c.effective < c.price,
    ...noteFields(c.club, notes, product),
    ...measureFields(c.effective, product),
  };
}

/** The store-granularity price entry of the API (every field of the spec's price entry). */
export function storeEntry(s: StoreFigure, product: ProductRow, notes: EntryNotes = NO_NOTES) {
  return {
    chain_id: s.row.chain_slug,
    chain_name: s.row.chain_name,
    granularity: "store" as const,
    store: {
      store_id: s.row.store_code,
      branch_name: s.row.branch_name ?? "",
      // Unknown stays null (not ""): a client can tell "no city/region known" from a value.
      city: s.row.city || null,
      region: s.row.region || null,
    },
    price_ils: formatIls(s.shelf),
    effective_price_ils: formatIls(s.effective),
    currency: "ILS" as const,
    vat_included: !s.inEilat,
    vat_rate: vatRate(s.row.collected_at.slice(0, 10), s.inEilat),
    collected_at: s.row.collected_at,
    is_on_promotion: s.effective < s.shelf,
    promotion_id: s.promotionId,
    ...noteFields(s.club, notes, product),
    ...measureFields(s.effective, product),
    ...(s.distanceKm === undefined ? {} : { distance_km: roundKm(s.distanceKm) }),
  };
}

export type Granularity = "chain" | "store";

type PriceEntry = ReturnType<typeof chainEntry> | ReturnType<typeof storeEntry>;

/**
 * A cached answer: the entries as objects (for other modules; `json` then their serialization,
 * made on first use), or the route's `data` serialized (`json`; a store answer's held deflated,
 * with its entries' index in `entries`, see store-answer.ts).
 */
export interface Answer {
  product: ProductRow;
  prices?: readonly PriceEntry[];
  json?: PrebuiltJson;
  entries?: StoreEntries;
}

/**
 * Computed answers per data set, keyed by query: a popular product's answer reads thousands of
 * rows, and it changes only with the data version or when one of its promotions starts or ends
 * (see ResultCache). Weight ≈ bytes held: serialized answers by their UTF-8 size, object
 * answers by entry count.
 */
const CACHE_BYTES = 128 * 2 ** 20;
const ENTRY_BYTES = 900;
/** Upper bound on how long an answer is reused even when no promotion boundary comes sooner. */
const MAX_REUSE_MS = 15 * 60_000;

/**
 * Bound of the serialized store-granularity answers (kind `q`), apart from the others: an answer
 * over every store of the country is ≈1 MB of JSON, so sharing one bound, the popular ones pushed
 * the chain answers out (and each other: 128 MiB held ≈130 of them). Held deflated (≈70 KB for
 * 2,000 stores, weighed by those bytes), 64 MiB holds ≈900 such answers.
 */
export const STORE_CACHE_BYTES = 64 * 2 ** 20;

/** A data set's /prices/ answers (createServices builds one per data set). */
export function priceAnswers(pacing: Pacing): AnswerCache<Answer> {
  return AnswerCache.of<Answer>(pacing, CACHE_BYTES, "prices", pricesKeyFiling);
}

/** A data set's serialized store-granularity /prices/ answers (see STORE_CACHE_BYTES). */
export function storePriceAnswers(pacing: Pacing, maxBytes = STORE_CACHE_BYTES): AnswerCache<Answer> {
  return AnswerCache.of<Answer>(pacing, maxBytes, "store-prices", pricesKeyFiling);
}

declare module "../../deps.ts" {
  interface AnswerCaches {
    prices: AnswerCache<Answer>;
    storePrices: AnswerCache<Answer>;
  }
}

/** The cache of an answer kind: serialized store answers (`q`) have their own (STORE_CACHE_BYTES). */
function cacheOf(deps: DataSet, kind: AnswerKind) {
  return kind === "q" ? deps.answers.storePrices : deps.answers.prices;
}

/** Freezes a cached answer so no caller can change what later requests get. */
function freezeEntries<T extends object>(entries: T[]): readonly T[] {
  for (const e of entries) {
    Object.freeze(e);
    const store = (e as { store?: object }).store;
    if (store) Object.freeze(store);
  }
  return Object.freeze(entries);
}

/**
 * Suspect entries after the others, each part in its own order: a price that is most likely a data
 * error is never listed as the cheapest (src/pricing/suspect.ts).
 */
function suspectLast<T>(entries: T[], isSuspect: (entry: T) => boolean): T[] {
  return entries.some(isSuspect) ? [...entries.filter((e) => !isSuspect(e)), ...entries.filter(isSuspect)] : entries;
}

const isSuspect = (entry: { suspect: boolean }) => entry.suspect;

/** A product's chain entries, cheapest first, and until when they hold. */
function chainPrices(deps: DataSet, product: ProductRow, query: PriceQuery, now: Date): { prices: PriceEntry[]; validUntil: number } {
  const reference = chainPricesOf(deps.db.prices, product.id);
  const lows = recentLows(deps, product.id, product.scope_chain_id === GENERIC_SCOPE, now, storeFilterOf(deps, query).filter);
  // Grouped in SQLite (chain-summary.ts): the same figures as chainFigures(storeFigures(…)).
  const { chains, validUntil } = chainSummary(deps, product, query, now);
  const chainIdOf = storeTable(deps).chainIdOf!;
  let prices: PriceEntry[] = suspectLast(
    sortChains(chains).map((c) => {
      const chainId = chainIdOf(c.chainSlug) ?? 0;
      const low = lows.byChain.get(chainId);
      return chainEntry(c, product, { lowest: low === undefined ? c.price : Math.min(low, c.price), suspect: suspectReason(c.price, chainId, reference) });
    }),
    isSuspect,
  );
  if (product.scope_chain_id === GENERIC_SCOPE) prices = withMemberItems(deps, product, prices);
  return { prices, validUntil: Math.min(validUntil, now.getTime() + MAX_REUSE_MS) };
}

/** A product's store figures in the order of its store entries, each with its notes, and until when they hold. */
function listedStores(deps: DataSet, product: ProductRow, query: PriceQuery, now: Date): { listed: { s: StoreFigure; notes: EntryNotes }[]; validUntil: number } {
  const reference = chainPricesOf(deps.db.prices, product.id);
  const lows = recentLows(deps, product.id, product.scope_chain_id === GENERIC_SCOPE, now, storeFilterOf(deps, query).filter);
  const { stores, validUntil } = storeFiguresUntil(deps, product, query, now);
  const listed = suspectLast(
    stores
      .sort(
        (a, b) =>
          a.effective - b.effective ||
          hebrew.compare(a.row.chain_name, b.row.chain_name) ||
          Number(a.row.store_code) - Number(b.row.store_code),
      )
      .map((s) => {
        const low = lows.byStore.get(s.row.store_db_id);
        return { s, notes: { lowest: low === undefined ? s.shelf : Math.min(low, s.shelf), suspect: suspectReason(s.shelf, s.row.chain_db_id, reference) } };
      }),
    (e) => e.notes.suspect !== null,
  );
  return { listed, validUntil: Math.min(validUntil, now.getTime() + MAX_REUSE_MS) };
}

/** A product's store entries as objects (for other modules), cheapest first, and until when they hold. */
function storeEntryObjects(deps: DataSet, product: ProductRow, query: PriceQuery, now: Date): { prices: PriceEntry[]; validUntil: number } {
  const { listed, validUntil } = listedStores(deps, product, query, now);
  return { prices: listed.map((e) => storeEntry(e.s, product, e.notes)), validUntil };
}

/**
 * A generic product's chain entries, each with the chain's own items it groups (`items`:
 * barcode, chain_id — null for a shared GTIN — and name), so a client can follow any of them.
 */
function withMemberItems(deps: DataSet, product: ProductRow, prices: PriceEntry[]): PriceEntry[] {
  const rows = stmt(
    deps.db.prices,
    `SELECT c.slug, p.barcode, p.scope_chain_id, p.name FROM generic_members gm
       JOIN products p ON p.id = gm.product_id
       JOIN chain_products cp ON cp.product_id = p.id
       JOIN chains c ON c.id = cp.chain_id
      WHERE gm.generic_id = ? ORDER BY c.slug, p.barcode`,
  ).values(product.id) as [string, string, number, string][];
  const byChain = new Map<string, { barcode: string; chain_id: string | null; name: string }[]>();
  for (const [slug, barcode, scope, name] of rows) {
    const list = byChain.get(slug) ?? [];
    list.push({ barcode, chain_id: scope > 0 ? slug : null, name });
    byChain.set(slug, list);
  }
  return prices.map((e) => ({ ...e, items: byChain.get(e.chain_id) ?? [] }));
}

/**
 * A product's answer, from the cache when the same question was answered for this data and these
 * promotions: as entry objects, or (`serialized`) as the route's `data` serialized once. On a busy
 * server just after an import it may be the previous data version's answer (see AnswerCache);
 * `snapshot` says which.
 */
function cachedAnswer(
  deps: DataSet,
  key: string,
  resolve: () => ProductRow,
  granularity: Granularity,
  query: PriceQuery,
  serialized: boolean,
  allowStale = true,
): Answered<Answer> {
  const generation = () => deps.data.current.version;
  return cacheOf(deps, serialized ? "q" : "o").get(deps, key, () => {
    const now = deps.now();
    const product = resolve();
    if (granularity === "store" && serialized) {
      // Each entry serialized on its own (no entry objects), so a page can be cut out of the answer (store-answer.ts).
      const { listed, validUntil } = listedStores(deps, product, query, now);
      const table = storeTable(deps);
      const entries = storeEntries(pricesData(product, []), listed.map((e) => ({ ...storeEntryParts(e.s, product, e.notes, table), storeId: e.s.row.store_db_id })));
      return { value: { product, json: entries.json, entries }, validUntil, weight: storeEntriesWeight(entries) + 512 };
    }
    const { prices, validUntil } = granularity === "store" ? storeEntryObjects(deps, product, query, now) : chainPrices(deps, product, query, now);
    if (serialized) {
      const json = PrebuiltJson.of(pricesData(product, prices));
      return { value: { product, json }, validUntil, weight: json.size + 512 };
    }
    return { value: { product, prices: freezeEntries(prices) }, validUntil, weight: (prices.length + 1) * ENTRY_BYTES };
  }, generation, allowStale);
}

/** The cache key of a question's filters (every field of PriceQuery). */
function filterKey(query: PriceQuery) {
  const near = query.near ? [query.near.lat, query.near.lon, query.near.radiusKm] : null;
  return [query.chainId ?? null, query.chainIds ?? null, query.city ?? null, query.region ?? null, near];
}

function pricesKey(kind: AnswerKind, barcode: string, granularity: Granularity, query: PriceQuery): string {
  return pricesKeys(kind, granularity, query)(barcode);
}

/**
 * The cache keys of one question's filters, by barcode: `[kind, granularity, barcodeKey, ...filters]`
 * as JSON, the part around the barcode made once (a batch asks 100 barcodes with the same filters).
 */
function pricesKeys(kind: AnswerKind, granularity: Granularity, query: PriceQuery): (barcode: string) => string {
  // Both are plain words, written as their JSON is; a question without filters (most) has a fixed tail.
  const head = `["${kind}","${granularity}",`;
  const tail = hasFilters(query) ? `,${JSON.stringify(filterKey(query)).slice(1)}` : NO_FILTERS;
  // A template literal makes one flat string; `+` makes a rope the Map must flatten before hashing
  // it (measured: a lookup 2× slower).
  return (barcode) => `${head}${JSON.stringify(barcodeKey(barcode))}${tail}`;
}

/**
 * The group of a question's answers, one per barcode (see AnswerCache.heldIn): its key without
 * the barcode. pricesKeyFiling files each /prices/ key under it.
 */
function pricesGroup(kind: AnswerKind, granularity: Granularity, query: PriceQuery): string {
  return JSON.stringify([kind, granularity, ...filterKey(query)]);
}

/** The groups of questions without filters (most), by granularity: made once. */
const UNFILTERED_GROUPS: Record<Granularity, string> = { chain: pricesGroup(answerKind("chain"), "chain", {}), store: pricesGroup(answerKind("store"), "store", {}) };

/** pricesGroup, made once for a question without filters. */
function pricesGroupOf(kind: AnswerKind, granularity: Granularity, query: PriceQuery): string {
  return hasFilters(query) ? pricesGroup(kind, granularity, query) : UNFILTERED_GROUPS[granularity];
}

/**
 * A /prices/ key (pricesKeys) as its group (pricesGroup: the same JSON, the barcode left out) and
 * member (the barcode's key); the widget's own keys (`w`) are held by key alone.
 */
function pricesKeyFiling(key: string): { group: string; member: string } | undefined {
  const [kind, granularity, member, ...filters] = JSON.parse(key) as unknown[];
  if ((kind !== "o" && kind !== "q") || typeof member !== "string") return undefined;
  return { group: JSON.stringify([kind, granularity, ...filters]), member };
}

/** The key's tail of a question without filters. */
const NO_FILTERS = `,${JSON.stringify(filterKey({})).slice(1)}`;

/** Whether any field filterKey reads is given. */
function hasFilters(query: PriceQuery): boolean {
  return query.chainId != null || query.chainIds != null || query.city != null || query.region != null || query.near != null;
}

/** What a cached /prices/ answer holds: entries (`o`, chain granularity: the widget reads them too) or the serialized data (`q`). */
type AnswerKind = "o" | "q";

function pricesData(product: ProductRow, prices: readonly PriceEntry[]) {
  return {
    barcode: product.barcode,
    name: product.name,
    manufacturer: product.manufacturer,
    category: product.category,
    unit_qty: product.unit_qty,
    size: product.size_amount,
    unit: product.size_unit,
    prices: prices as PriceEntry[],
  };
}

/** GET /api/v1/prices/: a product's prices across chains or stores, cheapest first. */
export function productPrices(deps: DataSet, barcode: string, granularity: Granularity, query: PriceQuery) {
  const resolve = () => requireProduct(deps, barcode, query.chainId);
  const { value } = cachedAnswer(deps, pricesKey("o", barcode, granularity, query), resolve, granularity, query, false);
  return pricesData(value.product, value.prices!);
}

/**
 * productPricesJson serialized once per cached answer (what /prices/ and the batch send), with the
 * data it reflects. `allowStale: false`: never the previous data version's answer (see AnswerCache).
 */
export function productPricesJson(
  deps: DataSet,
  barcode: string,
  granularity: Granularity,
  query: PriceQuery,
  options: { allowStale?: boolean } = {},
): { json: PrebuiltJson; snapshot: DataSnapshot } {
  const kind = answerKind(granularity);
  // Held for the current data (most requests): found by its group and barcode, as the batch finds it.
  const held = cacheOf(deps, kind).heldAt(deps, pricesGroupOf(kind, granularity, query), barcodeKey(barcode));
  if (held) return { json: answerJson(held.value), snapshot: held.snapshot };
  const resolve = () => requireProduct(deps, barcode, query.chainId);
  const { value, snapshot } = cachedAnswer(deps, pricesKey(kind, barcode, granularity, query), resolve, granularity, query, kind === "q", options.allowStale ?? true);
  return { json: answerJson(value), snapshot };
}

/** A cursor's position in a store answer: entries given so far, and the store (db id) the last of them was. */
type PagePosition = [given: number, lastStore: number];

const isPagePosition = (k: unknown): k is PagePosition =>
  Array.isArray(k) && k.length === 2 && Number.isSafeInteger(k[0]) && (k[0] as number) >= 1 && Number.isSafeInteger(k[1]);

/**
 * One page of a store-granularity answer (`limit` entries after the `cursor`'s), cut out of the
 * cached answer of the current data (never the previous version's: a walk's pages come from one
 * list). A cursor is bound to the data version, the question and the limit (src/http/encoding/
 * cursor.ts: else 400 invalid_cursor) and names the store its page ended on: when that store is no
 * longer there in the list (a promotion started or ended since, which can reorder the entries) the
 * cursor is invalid_cursor too — a walk never skips or repeats an entry silently.
 */
export function productPricesPage(
  deps: DataSet,
  barcode: string,
  query: PriceQuery,
  page: { limit?: number; cursor?: string },
): { json: PrebuiltJson; snapshot: DataSnapshot; nextCursor: string | null; total: number } {
  const key = pricesKey("q", barcode, "store", query);
  const held = cacheOf(deps, "q").heldAt(deps, pricesGroupOf("q", "store", query), barcodeKey(barcode));
  const { value, snapshot } = held ?? cachedAnswer(deps, key, () => requireProduct(deps, barcode, query.chainId), "store", query, true, false);
  const entries = value.entries!;
  const total = entries.storeIds.length;
  const scope = { dataSet: deps.data.name, version: snapshot.version };
  const cursorKey = JSON.stringify(["prices", key, page.limit ?? null]);
  let from = 0;
  if (page.cursor !== undefined) {
    const [given, lastStore] = decodeCursor(page.cursor, scope, cursorKey, isPagePosition);
    if (given > total || entries.storeIds[given - 1] !== lastStore) {
      throw new ApiError("invalid_cursor", "The prices of this product changed since this cursor was made (a promotion started or ended); start again from the first page.", { param: "cursor" });
    }
    from = given;
  }
  const to = Math.min(total, from + (page.limit ?? total));
  const nextCursor = to < total ? encodeCursor<PagePosition>(scope, cursorKey, [to, entries.storeIds[to - 1]!]) : null;
  return { json: pageOf(entries, from, to), snapshot, nextCursor, total };
}

/**
 * productPricesJson for many barcodes asked with the same granularity and filters (the batch's
 * items): the key's filter part is made once, the clock read once, and an answer held for the
 * current data costs one cache lookup; any other takes productPricesJson's own path.
 */
export function productPricesJsonLookup(
  deps: DataSet,
  granularity: Granularity,
  query: PriceQuery,
): (barcode: string, options?: { allowStale?: boolean }) => { json: PrebuiltJson; snapshot: DataSnapshot } {
  const kind = answerKind(granularity);
  const held = cacheOf(deps, kind).heldIn(deps, pricesGroupOf(kind, granularity, query));
  return (barcode, options) => {
    const hit = held(barcodeKey(barcode));
    return hit ? { json: answerJson(hit.value), snapshot: hit.snapshot } : productPricesJson(deps, barcode, granularity, query, options);
  };
}

/**
 * The chain-granularity answer without filters held for the current data (productPricesJson's
 * first step), or undefined when it is not held: then ask productPricesJson. Computes nothing,
 * counts nothing: a caller serving it counts it (countHeldChainPrices).
 */
export function heldChainPricesJson(deps: DataSet, barcode: string, at?: number): { json: PrebuiltJson; snapshot: DataSnapshot } | undefined {
  if (!deps.data.hasData) return undefined;
  const held = cacheOf(deps, "o").heldAt(deps, UNFILTERED_GROUPS.chain, barcodeKey(barcode), at, false);
  return held ? { json: answerJson(held.value), snapshot: held.snapshot } : undefined;
}

/** Counts an answer of heldChainPricesJson served, as a hit of the prices cache. */
export function countHeldChainPrices(deps: DataSet): void {
  cacheOf(deps, "o").countHit();
}

/**
 * The answers held for one question's filters (as productPricesJsonLookup asks them), by
 * barcode, for a caller reading many (the batch): a hit is the cache's entry, whose JSON
 * heldPricesJson reads; every entry's data version is the current one, and its snapshot is
 * `entry.value.snapshot`. On a miss (undefined) ask productPricesJsonLookup's lookup.
 */
export function heldPricesEntries(deps: DataSet, granularity: Granularity, query: PriceQuery): (barcode: string) => HeldEntry<{ value: Answer; snapshot: DataSnapshot }> | undefined {
  const kind = answerKind(granularity);
  const held = cacheOf(deps, kind).heldEntriesIn(deps, pricesGroupOf(kind, granularity, query));
  return (barcode) => held(barcodeKey(barcode));
}

/**
 * A held answer's JSON (answerJson), kept on the cache's entry as its derived value: a batch of
 * 100 reads each one there, not through the answer object (one memory read fewer per item).
 */
export function heldPricesJson(entry: HeldEntry<{ value: Answer; snapshot: DataSnapshot }>): PrebuiltJson {
  return (entry.derived ??= answerJson(entry.value.value)) as PrebuiltJson;
}

/**
 * Chain answers are computed once as entries (the widget reads the same ones) and serialized once
 * per computed answer; store answers are cached serialized.
 */
function answerKind(granularity: Granularity): AnswerKind {
  return granularity === "chain" ? "o" : "q";
}

/**
 * A cached answer's `data` serialized (once per answer: see answerKind), kept on the answer: its
 * entries are frozen, the answer object itself holds this memo (read without a map lookup, which
 * a batch would pay per item).
 */
function answerJson(value: Answer): PrebuiltJson {
  return (value.json ??= PrebuiltJson.of(pricesData(value.product, value.prices!)));
}

/**
 * A product's chain-granularity answer (no filters) by barcode, from the cache when it holds:
 * the product and its entries, cheapest first. The same object comes back while the answer holds,
 * so callers may key their own derived answers on it (widget). 404 product_not_found.
 */
export function chainAnswer(
  deps: DataSet,
  barcode: string,
  chainId?: string,
): { answer: { product: ProductRow; prices: readonly ReturnType<typeof chainEntry>[] }; snapshot: DataSnapshot } {
  // `chainId` only names the item (a chain-internal code); the answer lists every chain selling it.
  // Without it, the same cached answer as /prices/ without filters.
  const key = chainId ? JSON.stringify(["w", barcodeKey(barcode), chainId]) : pricesKey("o", barcode, "chain", {});
  const { value, snapshot } = cachedAnswer(deps, key, () => requireProduct(deps, barcode, chainId), "chain", {}, false);
  return { answer: value as { product: ProductRow; prices: readonly ReturnType<typeof chainEntry>[] }, snapshot };
}
