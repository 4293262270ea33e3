import { rowNode } from "../files/xml-scan.ts";
import type { XmlNode, XmlValue } from "../files/xml.ts";
import type { PromotionItemRecord, PromotionRecord, PromosFile } from "../records.ts";
import { parseIsraelDateTime, readPublishedTime } from "./dates.ts";
import { discountRate } from "./discount-rate.ts";
import { fromContext, HEADER_FIELDS } from "./header-fields.ts";
import { toAgorot } from "./money.ts";
import { PROMO_FIELDS, PROMO_GROUP_FIELDS, PROMO_ITEM_FIELDS } from "./promo-fields.ts";
import { child, collectRows, elements, headerOf } from "./tree.ts";
import type { Parsed, RowParser } from "./row-parser.ts";
import { cleanText, rawCode, stripCode, textOf, toFlag, toInt, toPositive } from "./values.ts";

/** Row elements of promotion files: the table in row-elements.ts. */
import { PROMO_ROWS } from "./row-elements.ts";
export { PROMO_ROWS };

type PromoFields = ReturnType<typeof PROMO_FIELDS.read>;
type ItemFields = ReturnType<typeof PROMO_ITEM_FIELDS.read>;

const money = (v: XmlValue | undefined) => {
  const a = toAgorot(textOf(v));
  return a !== null && a > 0 ? a : null;
};
const text = (v: XmlValue | undefined) => textOf(v)?.trim() || null;

/** "All customers": the name of club 0, written alone by some files. */
const ALL_CUSTOMERS = /כלל\s+הלקוחות/;

/**
 * A club id as its number: `0 - כלל הלקוחות` → `0`, `003` → `3`, the name alone
 * `כלל הלקוחות` → `0`; other text trimmed.
 * @example clubCode("0 - כלל הלקוחות") // "0"
 */
export function clubCode(value: string): string | null {
  const t = value.trim();
  if (!t) return null;
  const m = /^(\d+)/.exec(t);
  if (m) return m[1]!.replace(/^0+(?=\d)/, "");
  return ALL_CUSTOMERS.test(t) ? "0" : t;
}

function clubIds(f: PromoFields): string[] {
  const values: XmlValue[] = [];
  if (f.clubId !== undefined) values.push(f.clubId);
  if (f.clubs !== undefined) {
    if (typeof f.clubs === "string") values.push(f.clubs);
    for (const clubs of elements(f.clubs)) {
      for (const tag in clubs) if (PROMO_FIELDS.resolve(tag) === "clubId") values.push(clubs[tag]!);
    }
  }
  const ids: string[] = [];
  for (const v of values.flat()) {
    const id = clubCode(textOf(v) ?? "");
    if (id !== null && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Items of a `PromotionItems` element; Osher Ad 2015 packs several `ItemId`/`ItemType` pairs into one `Item`. */
function itemsOf(container: XmlValue | undefined, giftDefault: boolean, allGifts = false): PromotionItemRecord[] {
  const out: PromotionItemRecord[] = [];
  for (const list of elements(container)) {
    for (const node of elements(child(list, ["item", "promotionitem", "giftitem", "giftsitem"]))) {
      const f = PROMO_ITEM_FIELDS.read(node);
      const codes = Array.isArray(f.itemCode) ? f.itemCode : [f.itemCode];
      codes.forEach((code, i) => {
        const at = <T extends XmlValue | undefined>(v: T) => (Array.isArray(v) ? v[i] : v);
        const item = itemRecord(code, at(f.itemType), at(f.isGift), giftDefault, codes.length > 1 ? {} : f);
        if (item && allGifts) item.isGift = true;
        if (item) out.push(item);
      });
    }
  }
  return out;
}

function itemRecord(code: XmlValue | undefined, type: XmlValue | undefined, gift: XmlValue | undefined, giftDefault: boolean, f: ItemFields): PromotionItemRecord | null {
  const itemCode = rawCode(code);
  // `0000000000000` marks a basket-level reward group, not an item.
  if (!itemCode || /^0+$/.test(itemCode)) return null;
  return {
    itemCode,
    itemType: toInt(type),
    isGift: toFlag(gift, giftDefault),
    minQty: toPositive(f.minQty),
    maxQty: toPositive(f.maxQty),
    discountedPrice: money(f.discountedPrice),
    discountRate: discountRate(textOf(f.discountRate)),
    ...(f.rewardType !== undefined ? { rewardType: toInt(f.rewardType) } : {}),
  };
}

/** The value every item agrees on, else null (2026 grouped promotions carry these per item). */
function common<K extends "minQty" | "maxQty" | "discountedPrice" | "discountRate">(items: PromotionItemRecord[], key: K): number | null {
  let value: number | null = null;
  for (const item of items) {
    const v = item[key];
    if (v === null) continue;
    if (value === null) value = v;
    else if (value !== v) return null;
  }
  return value;
}

function commonReward(items: PromotionItemRecord[]): number | null {
  const values = new Set(items.map((i) => i.rewardType).filter((v) => v != null));
  return values.size === 1 ? [...values][0]! : null;
}

function newPromotion(code: string, f: PromoFields): PromotionRecord {
  const clubs = clubIds(f);
  const starts = readPublishedTime(text(f.startDate), text(f.startHour));
  const ends = readPublishedTime(text(f.endDate), text(f.endHour));
  const unreadable = [starts.unreadable, ends.unreadable].filter((v): v is string => v !== null);
  return {
    promotionCode: code,
    description: cleanText(f.description),
    startsAt: starts.value,
    endsAt: ends.value,
    ...(unreadable.length ? { unreadableDates: unreadable } : {}),
    updatedAt: parseIsraelDateTime(text(f.updatedAt)),
    rewardType: toInt(f.rewardType),
    discountType: toInt(f.discountType),
    minQty: toPositive(f.minQty),
    maxQty: toPositive(f.maxQty),
    discountedPrice: money(f.discountedPrice),
    discountRate: discountRate(textOf(f.discountRate)),
    minPurchaseAmount: money(f.minPurchaseAmount),
    // Club-only: some club listed and none is 0 ("כלל הלקוחות", all customers).
    isClubOnly: clubs.length > 0 && !clubs.includes("0"),
    isCoupon: toFlag(f.isCoupon),
    isWeighted: toFlag(f.isWeighted),
    allowMultiple: toFlag(f.allowMultiple),
    giftCount: toInt(f.giftCount),
    clubIds: clubs,
    remarks: cleanText(f.remarks),
    items: [],
  };
}

/**
 * Streams promotions of any dialect: flat `Promotions/Promotion` with `PromotionItems/Item`,
 * 2026 grouped `Groups/Group/PromotionItems/PromotionItem` (per-item reward, quantities and
 * prices; promotion-level values are those all items share), Matrix `Sales/Sale` and
 * Super-Pharm `Line` (one row per item, grouped by promotion id).
 *
 * @example const p = promoRowParser(); p.row(row, path); p.finish(root).file.promotions[0].discountedPrice // 890
 */
export function promoRowParser(): RowParser<PromosFile> {
  const byCode = new Map<string, { promo: PromotionRecord; seen: Set<string>; grouped: boolean }>();
  let noId = 0;
  return {
    row(row) {
      const f = PROMO_FIELDS.read(rowNode(row));
      for (const r of elements(f.restrictions)) PROMO_FIELDS.read(r, f);
      const code = rawCode(f.promotionCode);
      if (!code) {
        noId++;
        return;
      }
      let entry = byCode.get(code);
      if (!entry) {
        entry = { promo: newPromotion(code, f), seen: new Set(), grouped: false };
        byCode.set(code, entry);
      }
      const giftDefault = toFlag(f.isGift);
      const items = itemsOf(f.items, giftDefault);
      items.push(...itemsOf(f.gifts, true, true));
      for (const groups of elements(f.groups)) {
        for (const group of elements(child(groups, ["group"]))) {
          entry.grouped = true;
          const g = PROMO_GROUP_FIELDS.read(group);
          entry.promo.minPurchaseAmount ??= money(g.minPurchaseAmount);
          entry.promo.discountType ??= toInt(g.discountType);
          items.push(...itemsOf(g.items, giftDefault));
        }
      }
      // Matrix `Sale` / Super-Pharm `Line`: the item sits on the promotion row itself.
      if (f.itemCode !== undefined && !f.items) {
        const item = itemRecord(f.itemCode, f.itemType, f.isGift, false, {});
        if (item) items.push(item);
      }
      for (const item of items) {
        // The same code may be bought and given away ("buy 2, get a third free").
        const key = item.isGift ? `g${item.itemCode}` : item.itemCode;
        if (entry.seen.has(key)) continue;
        entry.seen.add(key);
        entry.promo.items.push(item);
      }
    },
    finish(root) {
      const header = headerOf(root, PROMO_ROWS);
      for (const entry of byCode.values()) if (entry.grouped) settleGrouped(entry.promo);
      return {
        file: {
          kind: "promos",
          chainCode: stripCode(fromContext(header, HEADER_FIELDS.chainCode)),
          subChainCode: stripCode(fromContext(header, HEADER_FIELDS.subChainCode)),
          storeCode: stripCode(fromContext(header, HEADER_FIELDS.storeCode)),
          promotions: [...byCode.values()].map((e) => e.promo),
        },
        warnings: noId ? [`${noId} promotion rows without PromotionId skipped`] : [],
      };
    },
  };
}

/**
 * {@link promoRowParser} over a whole in-memory document.
 * @example parsePromos(scanXml(text).root).file.promotions.length // 303
 */
export function parsePromos(root: XmlNode): Parsed<PromosFile> {
  const parser = promoRowParser();
  for (const { node, path } of collectRows(root, PROMO_ROWS)) parser.row(node, path);
  return parser.finish(root);
}

/** Promotion-level values of a grouped promotion from what its items share. */
function settleGrouped(promo: PromotionRecord): void {
  const items = promo.items;
  promo.rewardType ??= commonReward(items);
  promo.minQty ??= common(items, "minQty");
  promo.maxQty ??= common(items, "maxQty");
  promo.discountedPrice ??= common(items, "discountedPrice");
  promo.discountRate ??= common(items, "discountRate");
}
