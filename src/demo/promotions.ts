import type { Item } from "./assortment.ts";
import { addMinutes, type LocalTime } from "./clock.ts";
import { ils, roundShelf, type PriceEnding } from "./pricing.ts";
import type { Random } from "./random.ts";

/** Every kind of promotion the chains publish, so the demo exercises each one. */
export const PROMOTION_KINDS = ["discount", "multibuy", "percent", "club", "coupon", "gift", "weighted"] as const;
export type PromotionKind = (typeof PROMOTION_KINDS)[number];

export interface DemoPromotion {
  id: string;
  kind: PromotionKind;
  description: string;
  start: LocalTime;
  end: LocalTime;
  updated: LocalTime;
  /** Quantity that triggers the price (kg for weighted promotions). */
  minQty: number;
  maxQty: number | null;
  /** Agorot for minQty units together (null for percentage promotions). */
  discountedPrice: number | null;
  /** Percent (20 = 20%), or null. */
  discountRate: number | null;
  /** 0 = everyone; other ids are club members only. */
  clubId: number;
  isCoupon: boolean;
  giftCount: number;
  isWeighted: boolean;
  allowMultiple: boolean;
  rewardType: number;
  /** 1 absolute price, 0 relative (rate). */
  discountType: 0 | 1;
  /** Agorot, basket minimum (coupons). */
  minPurchase: number | null;
  items: { index: number; gift: boolean }[];
  /** Store ids the promotion runs in; null = every store of the chain. */
  stores: Set<string> | null;
}

interface Context {
  items: Item[];
  /** Indices of items on sale at the promotion set's time. */
  onSale: number[];
  prices: Int32Array;
  ending: PriceEnding;
  storeIds: string[];
  rng: Random;
  /** The moment the set is published: promotions are active, expired or upcoming relative to it. */
  at: LocalTime;
  /** Promotion ids start above this and grow in creation order. */
  firstId: number;
  withProduce: boolean;
}

/**
 * A chain's promotions as of `at`: the first of each kind are running at `at`; the rest are
 * mostly running, some already over (still listed, as chains do), a few not started yet.
 */
export function promotionSet(ctx: Context, count: number): DemoPromotion[] {
  const kinds = PROMOTION_KINDS.filter((k) => k !== "weighted" || ctx.withProduce);
  const out: DemoPromotion[] = [];
  const used = new Set<number>();
  const groups = groupItems(ctx);
  for (let n = 0; n < count * 3 && out.length < count; n++) {
    const kind = n < kinds.length ? kinds[n]! : pickKind(ctx.rng, ctx.withProduce);
    const status = n < kinds.length ? "active" : pickStatus(ctx.rng);
    const promotion = build(kind, status, ctx, groups, used);
    if (promotion) out.push(promotion);
  }
  let id = ctx.firstId;
  for (const p of out) p.id = String((id += ctx.rng.int(1, 40)));
  return out;
}

function pickKind(rng: Random, produce: boolean): PromotionKind {
  const r = rng.next();
  if (r < 0.34) return "discount";
  if (r < 0.58) return "multibuy";
  if (r < 0.68) return "percent";
  if (r < 0.78) return "club";
  if (r < 0.85) return "coupon";
  if (r < 0.93) return "gift";
  return produce ? "weighted" : "discount";
}

type Status = "active" | "expired" | "upcoming" | "long";

function pickStatus(rng: Random): Status {
  const r = rng.next();
  if (r < 0.74) return "active";
  if (r < 0.9) return "expired";
  if (r < 0.95) return "upcoming";
  return "long";
}

function dates(status: Status, at: LocalTime, rng: Random): { start: LocalTime; end: LocalTime } {
  const day = 24 * 60;
  const midnight = (t: LocalTime) => ({ ...t, h: 0, mi: 0, s: 0 });
  const endOfDay = (t: LocalTime) => ({ ...t, h: 23, mi: 59, s: 0 });
  switch (status) {
    case "active":
      return { start: midnight(addMinutes(at, -rng.int(1, 25) * day)), end: endOfDay(addMinutes(at, rng.int(2, 30) * day)) };
    case "expired": {
      const end = endOfDay(addMinutes(at, -rng.int(1, 20) * day));
      return { start: midnight(addMinutes(end, -rng.int(7, 40) * day)), end };
    }
    case "upcoming": {
      const start = midnight(addMinutes(at, rng.int(1, 6) * day));
      return { start, end: endOfDay(addMinutes(start, rng.int(7, 21) * day)) };
    }
    case "long":
      return { start: midnight(addMinutes(at, -rng.int(100, 600) * day)), end: { y: 2031, mo: 1, d: 1, h: 2, mi: 59, s: 0 } };
  }
}

/** Items on sale, indexed once per promotion set. */
interface Groups {
  barcoded: number[];
  weighted: number[];
  byFamily: Map<string, number[]>;
  byBrandCategory: Map<string, number[]>;
  byCategory: Map<string, number[]>;
}

function groupItems(ctx: Context): Groups {
  const groups: Groups = { barcoded: [], weighted: [], byFamily: new Map(), byBrandCategory: new Map(), byCategory: new Map() };
  const add = (map: Map<string, number[]>, key: string, i: number) => {
    const list = map.get(key);
    if (list) list.push(i);
    else map.set(key, [i]);
  };
  for (const i of ctx.onSale) {
    const item = ctx.items[i]!;
    if (item.weighted) groups.weighted.push(i);
    if (item.itemType !== 1) continue;
    groups.barcoded.push(i);
    add(groups.byFamily, `${item.familyKey}|${item.size?.label}`, i);
    add(groups.byBrandCategory, `${item.brand}|${item.category}`, i);
    add(groups.byCategory, item.category, i);
  }
  return groups;
}

function build(kind: PromotionKind, status: Status, ctx: Context, groups: Groups, used: Set<number>): DemoPromotion | null {
  const { rng, items, prices, ending } = ctx;
  const base0 = kind === "weighted" ? groups.weighted : groups.barcoded;
  let anchor = -1;
  for (let tries = 0; tries < 40 && base0.length > 0; tries++) {
    const pick = rng.pick(base0);
    if (!used.has(pick)) {
      anchor = pick;
      break;
    }
  }
  if (anchor < 0) return null;
  const free = (list: number[] | undefined) => (list ?? []).filter((i) => !used.has(i));
  const item = items[anchor]!;
  const price = prices[anchor]!;
  // The anchor first, then other flavours of the same pack; promotion prices go by the cheapest.
  const siblings = [anchor, ...free(groups.byFamily.get(`${item.familyKey}|${item.size?.label}`)).filter((i) => i !== anchor)].slice(0, 6);
  const lowest = (list: number[]) => Math.min(...list.map((i) => prices[i]!));
  const { start, end } = dates(status, ctx.at, rng);
  const base: DemoPromotion = {
    id: "",
    kind,
    description: "",
    start,
    end,
    updated: addMinutes(start, -rng.int(60, 3 * 24 * 60)),
    minQty: 1,
    maxQty: null,
    discountedPrice: null,
    discountRate: null,
    clubId: 0,
    isCoupon: false,
    giftCount: 0,
    isWeighted: false,
    allowMultiple: rng.chance(0.7),
    rewardType: 1,
    discountType: 1,
    minPurchase: null,
    items: [],
    stores: rng.chance(0.15) && ctx.storeIds.length > 1 ? new Set(rng.sample(ctx.storeIds, ctx.storeIds.length - 1)) : null,
  };
  const take = (list: number[]) => {
    for (const i of list) used.add(i);
    base.items = list.map((index) => ({ index, gift: false }));
  };

  switch (kind) {
    case "discount": {
      const group = siblings.slice(0, rng.int(1, 4));
      const low = lowest(group);
      const promo = roundShelf(low * rng.float(0.7, 0.88), ending);
      if (promo >= low) return null;
      take(group);
      base.discountedPrice = promo;
      base.description = `${item.stem} ב-${ils(promo)}`;
      return base;
    }
    case "multibuy":
    case "club": {
      const qty = kind === "club" ? rng.pick([1, 2]) : rng.pick([2, 2, 2, 3, 3, 4]);
      const low = lowest(siblings);
      const total = Math.max(100, Math.round((low * qty * rng.float(0.72, 0.88)) / 100) * 100);
      if (total >= low * qty) return null;
      take(siblings);
      base.minQty = qty;
      base.discountedPrice = total;
      base.maxQty = rng.chance(0.3) ? qty * rng.int(2, 4) : null;
      if (kind === "club") {
        base.clubId = rng.pick([1, 2, 3]);
        base.allowMultiple = false;
        base.description = `מבצע מועדון: ${item.stem} ${qty > 1 ? `${qty} ב-${ils(total, true)}` : `ב-${ils(total)}`}`;
      } else {
        base.description = `${item.stem} ${qty} ב-${ils(total, true)}`;
      }
      return base;
    }
    case "percent": {
      const brand = item.brand;
      const group = free(groups.byBrandCategory.get(`${brand}|${item.category}`)).slice(0, 15);
      const rate = rng.pick([10, 15, 20, 25, 30, 50]);
      take(group);
      base.discountRate = rate;
      base.discountType = 0;
      base.rewardType = 3;
      base.description = `${rate}% הנחה על ${brand ? `מוצרי ${brand}` : item.stem}`;
      return base;
    }
    case "coupon": {
      const promo = roundShelf(price * rng.float(0.5, 0.75), ending);
      if (promo >= price) return null;
      take([anchor]);
      base.isCoupon = true;
      base.discountedPrice = promo;
      base.minPurchase = rng.pick([10000, 15000, 20000]);
      base.allowMultiple = false;
      base.description = `קופון: ${item.stem} ב-${ils(promo)} בקנייה מעל ${base.minPurchase / 100} ש"ח`;
      return base;
    }
    case "gift": {
      const gifts = free(groups.byCategory.get(item.category)).filter((i) => i !== anchor && prices[i]! < price);
      if (gifts.length === 0) return null;
      const gift = rng.pick(gifts);
      const qty = rng.pick([1, 2]);
      used.add(anchor);
      used.add(gift);
      base.items = [
        { index: anchor, gift: false },
        { index: gift, gift: true },
      ];
      base.minQty = qty;
      base.discountedPrice = price * qty;
      base.giftCount = 1;
      base.rewardType = 6;
      base.description = `קנה ${qty > 1 ? `${qty} ` : ""}${item.stem} קבל ${items[gift]!.stem} מתנה`;
      return base;
    }
    case "weighted": {
      const promo = roundShelf(price * rng.float(0.65, 0.85), ending);
      if (promo >= price) return null;
      take([anchor]);
      base.isWeighted = true;
      base.discountedPrice = promo;
      base.description = `${item.name} ${ils(promo)} לק"ג`;
      return base;
    }
  }
}

