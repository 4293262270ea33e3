/** Builders of parsed records (what the dialect parsers produce) for loader tests. */
import type { FileName, FileType, PriceRecord, PromotionItemRecord, PromotionRecord, StoreRecord } from "../../src/ingest/records.ts";
import type { LoadInput } from "../../src/ingest/load/types.ts";

export const RAMI_LEVY = "7290058140886";
export const SHUFERSAL = "7290027600007";
export const VICTORY = "7290696200003";

export function item(itemCode: string, price: number, overrides: Partial<PriceRecord> = {}): PriceRecord {
  return {
    itemCode,
    itemType: 1,
    name: `מוצר ${itemCode}`,
    manufacturer: null,
    manufactureCountry: null,
    description: null,
    unitQty: null,
    quantity: null,
    unitOfMeasure: null,
    sizeAmount: null,
    sizeUnit: null,
    isWeighted: false,
    qtyInPackage: null,
    price,
    allowDiscount: true,
    itemStatus: 1,
    updatedAt: null,
    ...overrides,
  };
}

export function store(chainCode: string, storeCode: string, overrides: Partial<StoreRecord> = {}): StoreRecord {
  return {
    chainCode,
    subChainCode: "1",
    subChainName: "ראשי",
    storeCode,
    name: `סניף ${storeCode}`,
    address: "רחוב 1",
    city: "חיפה",
    zip: null,
    storeType: 1,
    ...overrides,
  };
}

export function promoItem(itemCode: string, overrides: Partial<PromotionItemRecord> = {}): PromotionItemRecord {
  return { itemCode, itemType: 1, isGift: false, minQty: null, maxQty: null, discountedPrice: null, discountRate: null, ...overrides };
}

export function promotion(promotionCode: string, items: PromotionItemRecord[], overrides: Partial<PromotionRecord> = {}): PromotionRecord {
  return {
    promotionCode,
    description: `מבצע ${promotionCode}`,
    startsAt: "2026-11-01T00:00:00+02:00",
    endsAt: "2026-12-31T23:59:00+02:00",
    updatedAt: null,
    rewardType: 1,
    discountType: 1,
    minQty: 2,
    maxQty: null,
    discountedPrice: 1000,
    discountRate: null,
    minPurchaseAmount: null,
    isClubOnly: false,
    isCoupon: false,
    isWeighted: false,
    allowMultiple: false,
    giftCount: null,
    clubIds: ["0"],
    remarks: null,
    items,
    ...overrides,
  };
}

/** `2026-11-22T05:00:00+02:00`-style time for hour `h` of a November 2026 day. */
export function at(day: number, hour = 5): string {
  return `2026-11-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00+02:00`;
}

export function name(type: FileType, chainCode: string, storeCode: string | null, time: string | null, extra: Partial<FileName> = {}): FileName {
  return { type, chainCode, subChainCode: null, storeCode, time, isNullPlaceholder: false, ...extra };
}

export function pricesInput(type: "pricefull" | "price", chainCode: string, storeCode: string, time: string, items: PriceRecord[], extra: Partial<LoadInput> = {}): LoadInput {
  return {
    fileName: `${type === "pricefull" ? "PriceFull" : "Price"}${chainCode}-${storeCode}-${time}`,
    bytes: 500,
    name: name(type, chainCode, storeCode, time),
    parsed: { kind: "prices", chainCode, subChainCode: null, storeCode, items },
    partial: false,
    warnings: [],
    ...extra,
  };
}

export function promosInput(type: "promofull" | "promo", chainCode: string, storeCode: string, time: string, promotions: PromotionRecord[], extra: Partial<LoadInput> = {}): LoadInput {
  return {
    fileName: `${type === "promofull" ? "PromoFull" : "Promo"}${chainCode}-${storeCode}-${time}`,
    bytes: 500,
    name: name(type, chainCode, storeCode, time),
    parsed: { kind: "promos", chainCode, subChainCode: null, storeCode, promotions },
    partial: false,
    warnings: [],
    ...extra,
  };
}

export function storesInput(chainCode: string, time: string, stores: StoreRecord[], extra: Partial<LoadInput> = {}): LoadInput {
  return {
    fileName: `Stores${chainCode}-${time}`,
    bytes: 500,
    name: name("stores", chainCode, null, time),
    parsed: { kind: "stores", chainCode, chainName: null, stores },
    partial: false,
    warnings: [],
    ...extra,
  };
}

/** A valid GTIN-13 `729…` for a small number (check digit computed). */
export function gtin(n: number): string {
  const body = `729${String(n).padStart(9, "0")}`;
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += Number(body[i]) * w;
  return body + String((10 - (sum % 10)) % 10);
}
