import type { Chain } from "../registry.ts";
import { chainItems, type Item } from "./assortment.ts";
import type { Catalog } from "./catalog.ts";
import type { LocalTime } from "./clock.ts";
import { chainHistory, type ChainHistory } from "./history.ts";
import { profileFor, type Profile } from "./profiles.ts";
import { promotionSet, type DemoPromotion } from "./promotions.ts";
import { roundShelf, vatRate } from "./pricing.ts";
import { hashString, type Random } from "./random.ts";
import type { DemoSeed } from "./seed.ts";
import { chainStores, type DemoStore } from "./stores.ts";
import { calendarDate, chainTimeline, type Timeline } from "./timeline.ts";

/**
 * Everything the demo decides about one chain before writing a byte: its stores, the items
 * it sells, its price history and promotions, and what each store carries.
 */
export interface ChainPlan {
  chain: Chain;
  profile: Profile;
  stores: DemoStore[];
  items: Item[];
  timeline: Timeline;
  history: ChainHistory;
  /** Per store id: item indices the store does not carry. */
  gaps: Map<string, Set<number>>;
  /** Per store id: item index → price factor where the store departs from the chain price. */
  deviations: Map<string, Map<number, number>>;
  promotionsStart: DemoPromotion[];
  promotionsNow: DemoPromotion[];
}

export function planChain(chain: Chain, seed: DemoSeed, catalog: Catalog, now: Date, months: number, scale: number, rng: Random): ChainPlan {
  const profile = profileFor(chain);
  const stores = chainStores(chain, seed.stores[chain.slug], rng.fork("stores"));
  const items = chainItems(chain.slug, profile, catalog, seed.products.produce, rng.fork("items"), scale);
  const timeline = chainTimeline(now, months, rng.fork("timeline"));
  const history = chainHistory(items, timeline, profile.ending, rng.fork("history"));

  const gaps = new Map<string, Set<number>>();
  const deviations = new Map<string, Map<number, number>>();
  for (const store of stores) {
    const storeRng = rng.fork(`store:${store.code}:${store.id}`);
    const missing = new Set<number>();
    const share = storeRng.float(0.02, 0.08);
    const deviation = new Map<number, number>();
    for (let i = 0; i < items.length; i++) {
      if (storeRng.chance(share)) missing.add(i);
      else if (storeRng.chance(0.03)) deviation.set(i, storeRng.chance(0.6) ? storeRng.float(1.03, 1.08) : storeRng.float(0.93, 0.97));
    }
    gaps.set(storeKey(store), missing);
    deviations.set(storeKey(store), deviation);
  }

  const last = history.pricesAt.length - 1;
  const onSaleNow: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if ((history.startSet.has(i) || history.steps.some((s) => s.launches.has(i))) && !history.delisted.has(i)) onSaleNow.push(i);
  }
  const count = Math.max(12, Math.min(50, Math.round(items.length / 45)));
  const firstId = 100_000 + (hashString(`promo-ids:${chain.slug}`) % 800_000);
  const withProduce = items.some((i) => i.weighted);
  const storeIds = stores.map((s) => s.id);
  const promotionsStart = promotionSet(
    { items, onSale: [...history.startSet], prices: history.pricesAt[0]!, ending: profile.ending, storeIds, rng: rng.fork("promos:start"), at: timeline.start, firstId, withProduce },
    count,
  );
  const promotionsNow = promotionSet(
    { items, onSale: onSaleNow, prices: history.pricesAt[last]!, ending: profile.ending, storeIds, rng: rng.fork("promos:now"), at: timeline.now, firstId: firstId + 60_000, withProduce },
    count,
  );
  return { chain, profile, stores, items, timeline, history, gaps, deviations, promotionsStart, promotionsNow };
}

export function storeKey(store: DemoStore): string {
  return store.id + "@" + store.code;
}

/**
 * The store's shelf price for an item given the chain price: store-level departures, the
 * sub-chain's level, and Eilat's VAT exemption (prices there are published without VAT).
 */
export function storePrice(plan: ChainPlan, store: DemoStore, index: number, chainPrice: number, at: LocalTime): number {
  const factor = store.priceFactor * (plan.deviations.get(storeKey(store))!.get(index) ?? 1);
  let price = factor === 1 ? chainPrice : roundShelf(chainPrice * factor, plan.profile.ending);
  if (store.eilat) price = roundShelf(price / (1 + vatRate(calendarDate(plan.timeline, at))), plan.profile.ending);
  return price;
}

export function carries(plan: ChainPlan, store: DemoStore, index: number): boolean {
  return !plan.gaps.get(storeKey(store))!.has(index);
}
