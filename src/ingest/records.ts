/**
 * The records every dialect parser produces and the loader consumes. Dialect differences end
 * here: values are trimmed, placeholders (`לא ידוע`, `unknown`, `00000`, empty) are null, money
 * is integer agorot, times are ISO 8601 with the Israel offset of that instant.
 */

export type FileType = "stores" | "pricefull" | "price" | "promofull" | "promo";

/** What a file name says (see ingest/files/name.ts). */
export interface FileName {
  type: FileType;
  /** Chain code as written, digits only, leading zeros stripped (`72906390` for Stop Market). */
  chainCode: string;
  subChainCode: string | null;
  /** Store code without leading zeros, null for chain-wide files (Stores). */
  storeCode: string | null;
  /** ISO 8601 with offset, Israel local time of the name's timestamp. */
  time: string | null;
  /** `NULL`-prefixed "nothing changed" placeholder; may still carry rows. */
  isNullPlaceholder: boolean;
}

export interface StoreRecord {
  chainCode: string;
  subChainCode: string | null;
  subChainName: string | null;
  storeCode: string;
  name: string | null;
  address: string | null;
  /** Hebrew city name; numeric CBS locality codes are resolved when known, else kept as digits. */
  city: string | null;
  zip: string | null;
  storeType: number | null;
  /** Published coordinates (WGS84 degrees), present only when both are numbers inside Israel. */
  latitude?: number;
  longitude?: number;
}

export interface StoresFile {
  kind: "stores";
  chainCode: string | null;
  chainName: string | null;
  /** The list's own time (header `LastUpdateDate`/`LastUpdateTime`, Matrix `<Store Date= Time=>`); null when absent. */
  updatedAt?: string | null;
  /** The newest of the rows' own `LastUpdateDate` (Matrix branches); the last stand-in for a time. */
  newestRowAt?: string | null;
  stores: StoreRecord[];
}

/** Normalised package size: grams, millilitres or units. */
export type SizeUnit = "g" | "ml" | "unit";

export interface PriceRecord {
  /** Item code as published (digits; may carry leading zeros). */
  itemCode: string;
  /** 1 barcode, 0 chain-internal code, null when the dialect has no ItemType. */
  itemType: number | null;
  name: string;
  manufacturer: string | null;
  manufactureCountry: string | null;
  description: string | null;
  unitQty: string | null;
  quantity: number | null;
  unitOfMeasure: string | null;
  sizeAmount: number | null;
  sizeUnit: SizeUnit | null;
  isWeighted: boolean;
  qtyInPackage: number | null;
  /** Agorot. */
  price: number;
  allowDiscount: boolean;
  itemStatus: number | null;
  /** ISO 8601 with offset, or null when missing or implausible. */
  updatedAt: string | null;
}

export interface PricesFile {
  kind: "prices";
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  items: PriceRecord[];
}

export interface PromotionItemRecord {
  itemCode: string;
  itemType: number | null;
  isGift: boolean;
  /** Per-item overrides of the 2026 grouped format; null = the promotion's value. */
  minQty: number | null;
  maxQty: number | null;
  discountedPrice: number | null;
  discountRate: number | null;
  /** Per-item `RewardType` of the 2026 grouped format; absent in flat formats. */
  rewardType?: number | null;
}

export interface PromotionRecord {
  promotionCode: string;
  description: string | null;
  startsAt: string | null;
  endsAt: string | null;
  /** Raw start/end values no known date form reads: such a promotion is never served as active. */
  unreadableDates?: string[];
  updatedAt: string | null;
  rewardType: number | null;
  discountType: number | null;
  minQty: number | null;
  maxQty: number | null;
  /** Agorot: the price of minQty units together. */
  discountedPrice: number | null;
  /** Fraction 0..1. */
  discountRate: number | null;
  /** Agorot. */
  minPurchaseAmount: number | null;
  isClubOnly: boolean;
  isCoupon: boolean;
  isWeighted: boolean;
  allowMultiple: boolean;
  giftCount: number | null;
  clubIds: string[];
  remarks: string | null;
  items: PromotionItemRecord[];
}

export interface PromosFile {
  kind: "promos";
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  promotions: PromotionRecord[];
}

export type ParsedFile = StoresFile | PricesFile | PromosFile;
