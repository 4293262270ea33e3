import type { DataSet } from "../../deps.ts";
import type { DataSnapshot } from "../../data/data-state.ts";
import { utf8 } from "../../http/prebuilt/json-bytes.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { ApiError, invalidParameter } from "../../errors/api-error.ts";
import { priceFilters } from "../prices/filters.ts";
import { heldPricesEntries, heldPricesJson, productPricesJsonLookup } from "../prices/service.ts";
import type { BatchBody } from "./model.ts";

/** What an item answers: the /prices/ answer's bytes, or its error. */
type ItemAnswer = { json: PrebuiltJson; snapshot: DataSnapshot } | { error: ApiError };

/** Errors /prices/ answers for one product question: in a batch they are that item's answer. */
const ITEM_ERRORS: ReadonlySet<string> = new Set(["product_not_found", "chain_not_found", "ambiguous_product"]);

/**
 * One item asked exactly as `GET /prices/?barcode=…&chain_id=…` with the batch's filters would
 * ask it — /prices/' own cache and, for an answer not held, the same function the route calls
 * (and its product resolution, resolveProduct), so the same cached answer. An error /prices/ would answer for the item alone (unknown product,
 * unknown chain, a bare code several chains use) becomes the item's error.
 */
function answerItem(lookups: ItemLookups, item: BatchBody["items"][number], allowStale: boolean): ItemAnswer {
  try {
    return lookups.of(item.chain_id)(item.barcode, allowStale ? STALE_ALLOWED : CURRENT_ONLY);
  } catch (error) {
    if (error instanceof ApiError && ITEM_ERRORS.has(error.code)) return { error };
    throw error;
  }
}

const STALE_ALLOWED = { allowStale: true };
const CURRENT_ONLY = { allowStale: false };

type ItemLookup = ReturnType<typeof productPricesJsonLookup>;

/**
 * The /prices/ lookups of the batch's items (their filters and cache keys' filter part), made once
 * per distinct item `chain_id` (most batches: once).
 */
class ItemLookups {
  private readonly made = new Map<string, ItemLookup>();
  /** The lookup of items without a `chain_id` (most items), held apart from the map. */
  private plain: ItemLookup | undefined;

  constructor(
    private readonly deps: DataSet,
    private readonly body: BatchBody,
  ) {}

  /** The answers held for items without a `chain_id` (see heldPricesEntries). */
  held(): ReturnType<typeof heldPricesEntries> {
    const { body } = this;
    return heldPricesEntries(this.deps, body.granularity, this.query(undefined));
  }

  of(chainId: string | undefined): ItemLookup {
    if (chainId === undefined) return (this.plain ??= this.make(undefined));
    let lookup = this.made.get(chainId);
    if (!lookup) this.made.set(chainId, (lookup = this.make(chainId)));
    return lookup;
  }

  private make(chainId: string | undefined): ItemLookup {
    return productPricesJsonLookup(this.deps, this.body.granularity, this.query(chainId));
  }

  /** The /prices/ filters of an item with this `chain_id` and the batch's filters. */
  private query(chainId: string | undefined) {
    const { body } = this;
    const query = priceFilters(this.deps, { chain_id: chainId, city: body.city, region: body.region, near: body.near, radius_km: body.radius_km });
    if (body.chain_ids) query.chainIds = body.chain_ids;
    return query;
  }
}

/**
 * The batch's own filters, checked once so their errors are the request's, not every item's: an
 * unknown chain in `chain_ids` is 400 naming it, `radius_km` without `near` 400.
 */
export function checkBatchFilters(deps: DataSet, body: BatchBody): void {
  body.chain_ids?.forEach((slug, i) => {
    if (!deps.registry.bySlug.has(slug)) throw invalidParameter(`chain_ids[${i}]`, `Unknown chain ${slug}; GET /api/v1/chains/ lists them.`);
  });
  priceFilters(deps, { city: body.city, region: body.region, near: body.near, radius_km: body.radius_km });
}

/**
 * POST /api/v1/prices/batch/: each item's /prices/ answer, in request order (filters checked by
 * checkBatchFilters), item-level problems as item errors. All answers reflect one data version:
 * just after an import a busy server may answer an item from the previous data (see
 * AnswerCache); when that would mix versions, those items are asked again on the current data.
 * An item without `chain_id` whose answer is held for the current data (the steady state) is read
 * straight from the cache's entry (heldPricesEntries): its JSON, no answer object made per item.
 */
export function batchPricesJson(deps: DataSet, body: BatchBody): { json: PrebuiltJson; snapshot: DataSnapshot } {
  const lookups = new ItemLookups(deps, body);
  const { items } = body;
  // Each item's JSON: a held answer's, or set below from `asked`.
  const members: (PrebuiltJson | Uint8Array)[] = new Array(items.length);
  // The answers of the items not found held, by index.
  const asked: (ItemAnswer | undefined)[] = new Array(items.length);
  const held = lookups.held();
  const heldVersion = deps.data.current.version;
  // The data version of the first answer, and whether another answer has another one.
  let snapshot: DataSnapshot | undefined;
  let mixed = false;
  // The first held answer's index and snapshot (the others' are of the same data version).
  let firstHeldAt = -1;
  let firstHeld: DataSnapshot | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const entry = item.chain_id === undefined ? held(item.barcode) : undefined;
    if (entry) {
      members[i] = heldPricesJson(entry);
      if (firstHeldAt < 0) {
        firstHeldAt = i;
        firstHeld = entry.value.snapshot;
      }
      if (!snapshot) snapshot = firstHeld;
      else if (snapshot.version !== heldVersion) mixed = true;
      continue;
    }
    const a = (asked[i] = answerItem(lookups, item, true));
    if (!("snapshot" in a)) continue;
    if (!snapshot) snapshot = a.snapshot;
    else if (a.snapshot.version !== snapshot.version) mixed = true;
  }
  if (mixed) {
    const current = deps.data.current.version;
    snapshot = undefined;
    items.forEach((item, i) => {
      let a = asked[i];
      if (!a) {
        // Held: of the current data version.
        if (i === firstHeldAt) snapshot ??= firstHeld;
        return;
      }
      if ("snapshot" in a && a.snapshot.version !== current) a = asked[i] = answerItem(lookups, item, false);
      if ("snapshot" in a) snapshot ??= a.snapshot;
    });
  }

  // The cached answers' own bytes (and, gzipped, their own compressed bytes) listed: see PrebuiltJson.list.
  for (let i = 0; i < items.length; i++) {
    const a = asked[i];
    if (!a) continue;
    if ("json" in a) {
      members[i] = a.json;
      continue;
    }
    const item = items[i]!;
    const failed = {
      barcode: item.barcode,
      ...(item.chain_id ? { chain_id: item.chain_id } : {}),
      error: { code: a.error.code, detail: a.error.message, ...(a.error.options.extensions ?? {}) },
    };
    members[i] = utf8(JSON.stringify(failed));
  }
  return { json: PrebuiltJson.list(members), snapshot: snapshot ?? deps.data.current };
}
