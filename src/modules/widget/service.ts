import type { DataSet } from "../../deps.ts";
import { stmt } from "../../db/statements.ts";
import { chainAnswer } from "../prices/service.ts";
import { imageUrl } from "../search/service.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import type { DataSnapshot } from "../../data/data-state.ts";

// Serialized answers per priced answer (a new one comes with new data or a promotion's start or
// end) and origin (the image URL names it): widgets on busy pages ask for the same products.
// Module-level, yet no app state: a memo attached to each (frozen, immutable) answer object of a
// data set's /prices/ cache, gone with it.
const serialized = new WeakMap<object, Map<string, PrebuiltJson>>();

/**
 * widgetData serialized once per answer and origin (what the route sends), with the data it
 * reflects (on a busy server just after an import, possibly the previous version's: see AnswerCache).
 * @example widgetDataJson(deps, "7290000066318", "https://shop.example").json.size // 1843
 */
export function widgetDataJson(deps: DataSet, barcode: string, origin: string, chainId?: string): { json: PrebuiltJson; snapshot: DataSnapshot } {
  const { answer, snapshot } = chainAnswer(deps, barcode, chainId);
  let byOrigin = serialized.get(answer);
  if (!byOrigin) serialized.set(answer, (byOrigin = new Map()));
  let json = byOrigin.get(origin);
  if (!json) {
    json = PrebuiltJson.of(widgetDataOf(deps, answer, snapshot, origin));
    if (byOrigin.size >= 8) byOrigin.clear(); // a few origins per product at most; never unbounded
    byOrigin.set(origin, json);
  }
  return { json, snapshot };
}

/**
 * GET /api/v1/widget/data/: the chain entries of /prices/ (same rules, same order: effective
 * price, then chain name) cut down to what the widget shows; `image_url` as in search (the
 * operator's template, else the generated label). 404 product_not_found for an unknown barcode.
 */
export function widgetData(deps: DataSet, barcode: string, origin: string, chainId?: string) {
  const { answer, snapshot } = chainAnswer(deps, barcode, chainId);
  return widgetDataOf(deps, answer, snapshot, origin);
}

function widgetDataOf(deps: DataSet, answer: ReturnType<typeof chainAnswer>["answer"], snapshot: DataSnapshot, origin: string) {
  const { product, prices: entries } = answer;
  return {
    barcode: product.barcode,
    name: product.name,
    image_url: imageUrl(deps, origin, product.barcode),
    prices: entries.map((e) => ({
      chain_id: e.chain_id,
      chain_name: e.chain_name,
      chain_name_en: englishNames(deps).get(e.chain_id) ?? e.chain_name,
      price_ils: e.price_ils,
      effective_price_ils: e.effective_price_ils,
      is_on_promotion: e.is_on_promotion,
      lowest_price_30d_ils: e.lowest_price_30d_ils,
      suspect: e.suspect,
      ...(e.sold_by ? { sold_by: e.sold_by } : {}),
      store_count: e.store_count,
    })),
    // Suspect entries come last (see /prices/); the cheapest is never one of them.
    cheapest_chain_id: entries.find((e) => !e.suspect)?.chain_id ?? null,
    data_updated_at: snapshot.updatedAt,
  };
}

// A pure memo of the (immutable) registry's English names: the same for every app.
const englishByRegistry = new WeakMap<object, Map<string, string>>();

/** Chain slug → English name (for widgets with data-lang="en"), once per registry. */
function englishNames(deps: DataSet): Map<string, string> {
  let names = englishByRegistry.get(deps.registry);
  if (!names) englishByRegistry.set(deps.registry, (names = new Map(deps.registry.chains.map((c) => [c.slug, c.name_en]))));
  return names;
}

export interface DemoProduct {
  barcode: string;
  name: string;
  stores: number;
  chains: number;
}

/** The shared-barcode products sold in most stores (then most chains): good demo material, chosen from the data. */
export function demoProducts(deps: DataSet, limit = 4): DemoProduct[] {
  return stmt(
    deps.db.prices,
    `SELECT p.barcode, p.name, sum(cp.store_count) AS stores, count(*) AS chains
         FROM chain_products cp JOIN products p ON p.id = cp.product_id
        WHERE p.scope_chain_id = 0
        GROUP BY cp.product_id
        ORDER BY stores DESC, chains DESC, p.barcode
        LIMIT ?`,
  ).all(limit) as DemoProduct[];
}
