import type { Chain } from "../registry.ts";
import type { Compression } from "./compress.ts";
import type { TextEncoding } from "./encoding.ts";
import type { PriceEnding } from "./pricing.ts";

/**
 * How one chain publishes: XML dialect, file-name layout, encoding, compression, and the
 * quirks its real files show (research notes §3–§5 and the samples). Derived from the
 * registry's portal family, refined per chain.
 */
export type Dialect = "cerberus" | "bina" | "matrix" | "superpharm" | "modern";

/**
 * `legacy`: PriceFull<C>-<store>-<YYYYMMDDHHMM>; `matrix`: … -<seq>; `new5`: <C>-<sub>-<store>-<YYYYMMDD>-<HHMMSS>.
 */
export type NameLayout = "legacy" | "matrix" | "new5";

/** Stores-file naming: chain-wide `Stores<C>-<ts>`, Bina `StoresFull<C>-000-<ts>`, Super-Pharm `StoresFull<C>--<ts>`, Matrix `StoresFull<C>-000-<ts>-000`. */
export type StoresLayout = "cerberus" | "bina" | "superpharm" | "matrix" | "sub000";

export type Assortment = "supermarket" | "discounter" | "convenience" | "drugstore" | "online";

export interface Profile {
  dialect: Dialect;
  layout: NameLayout;
  storesLayout: StoresLayout;
  /** File extension of price and promo files (`.gz`, `.GZ`, `.xml`, `.xml.gz` or none). */
  ext: string;
  storesExt: string;
  compression: Compression;
  storesCompression: Compression;
  encoding: TextEncoding;
  storesEncoding: TextEncoding;
  /** Relative price level: discounters < 1 < convenience stores. */
  priceLevel: number;
  ending: PriceEnding;
  assortment: Assortment;
  /** Cerberus: extra <ItemId>; names cut to 20 characters; unknowns spelled out. */
  itemId?: boolean;
  truncateNames?: number;
  /** `ManufactureName` instead of `ManufacturerName` (Hazi Hinam, City Market shops). */
  manufactureName?: boolean;
  /** `ItemNm` instead of `ItemName` (Rami Levy since 2025). */
  itemNm?: boolean;
  /** Bina: size fields published as "00000" and prices without trailing zeros (Maayan 2000). */
  zeroSizes?: boolean;
  /** Delta price files carry the `NULL` prefix and still hold rows (King Store). */
  nullDeltas?: boolean;
  /** A `NULLPromo` "nothing changed" placeholder each month (Hazi Hinam). */
  nullPromoPlaceholders?: boolean;
  /** Publishes no promotions: PromoFull files are empty (Meshnat Yosef). */
  noPromotions?: boolean;
  /** One store's current PromoFull is legitimately empty (Wolt). */
  emptyPromoStore?: boolean;
  /** One month's delta of one store is an empty `<Items Count="0"/>` file (Carrefour). */
  emptyDelta?: boolean;
  /** H. Cohen's branches all say `LastUpdateDate 01/01/0001 00:00:00`. */
  placeholderBranchDates?: boolean;
  /** Yellow and Tiv Taam write `MinAmount` for the basket minimum. */
  minAmountTag?: boolean;
  /** Netiv Hased writes `MAXQTY`. */
  upperMaxQty?: boolean;
  /** Chain name in the stores file when it is not the registry's Hebrew name. */
  storesChainName?: string;
  /** Code written in the stores file and its name (Stop Market: `72906390`, named `0000072906390`). */
  storesCode?: string;
  storesFileCode?: string;
  /** Shufersal 2026: City as a CBS locality code. */
  numericCities?: boolean;
  /** One line, XML declaration with standalone="yes" (Wolt). */
  singleLine?: boolean;
  /** Country as published: ISO code, Hebrew, or King Store's "IL2". */
  countryStyle?: "iso" | "hebrew" | "unknown" | "il2";
  /** Rami Levy writes a junk PromotionUpdateDate on some promotions. */
  junkPromoDates?: boolean;
}

const DEFAULTS: Record<Dialect, Omit<Profile, "priceLevel" | "assortment">> = {
  cerberus: {
    dialect: "cerberus",
    layout: "legacy",
    storesLayout: "cerberus",
    ext: ".gz",
    storesExt: ".xml",
    compression: "gzip",
    storesCompression: "none",
    encoding: "utf8-bom",
    storesEncoding: "utf8-bom",
    ending: "90",
    countryStyle: "hebrew",
  },
  bina: {
    dialect: "bina",
    layout: "legacy",
    storesLayout: "bina",
    ext: ".gz",
    storesExt: ".gz",
    compression: "zip",
    storesCompression: "zip",
    encoding: "utf8",
    storesEncoding: "utf8",
    ending: "90",
    countryStyle: "unknown",
  },
  matrix: {
    dialect: "matrix",
    layout: "matrix",
    storesLayout: "matrix",
    ext: ".xml.gz",
    storesExt: ".xml",
    compression: "gzip",
    storesCompression: "none",
    encoding: "utf8",
    storesEncoding: "utf8",
    ending: "90",
    countryStyle: "hebrew",
  },
  superpharm: {
    dialect: "superpharm",
    layout: "legacy",
    storesLayout: "superpharm",
    ext: ".gz",
    storesExt: "",
    compression: "gzip",
    storesCompression: "none",
    encoding: "utf8",
    storesEncoding: "utf8",
    ending: "90",
    countryStyle: "hebrew",
  },
  modern: {
    dialect: "modern",
    layout: "new5",
    storesLayout: "sub000",
    ext: ".gz",
    storesExt: ".gz",
    compression: "gzip",
    storesCompression: "gzip",
    encoding: "utf8",
    storesEncoding: "utf8",
    ending: "90",
    countryStyle: "iso",
  },
};

const FAMILY_DIALECT: Record<string, Dialect> = {
  cerberus: "cerberus",
  publishprice: "cerberus",
  hazihinam: "cerberus",
  citymarket: "cerberus",
  bina: "bina",
  netivhahesed: "bina",
  meshnatyosef: "bina",
  laib: "matrix",
  superpharm: "superpharm",
  shufersal: "modern",
  wolt: "modern",
};

type Override = Partial<Profile> & { priceLevel: number; assortment: Assortment };

/** Per-chain refinements; a chain added to the registry later still gets its family's defaults. */
const CHAINS: Record<string, Override> = {
  shufersal: { priceLevel: 1.0, assortment: "supermarket", numericCities: true, storesLayout: "sub000", ext: ".gz" },
  "rami-levy": { priceLevel: 0.9, assortment: "discounter", itemNm: true, junkPromoDates: true },
  "super-cofix": { priceLevel: 0.99, assortment: "convenience", itemId: true, truncateNames: 20, countryStyle: "unknown", storesChainName: "רמי לוי בשכונה" },
  carrefour: { priceLevel: 0.97, assortment: "supermarket", emptyDelta: true },
  quik: { priceLevel: 1.08, assortment: "convenience" },
  victory: { priceLevel: 0.93, assortment: "discounter" },
  "mahsanei-hashuk": { priceLevel: 0.92, assortment: "discounter" },
  "h-cohen": { priceLevel: 0.95, assortment: "supermarket", placeholderBranchDates: true },
  "osher-ad": { priceLevel: 0.89, assortment: "discounter" },
  yochananof: { priceLevel: 0.92, assortment: "discounter" },
  "tiv-taam": { priceLevel: 1.12, assortment: "supermarket", storesEncoding: "utf16le", minAmountTag: true },
  "keshet-teamim": { priceLevel: 0.94, assortment: "discounter" },
  "dor-alon": { priceLevel: 1.25, assortment: "convenience", layout: "new5", storesChainName: "Dor Alon" },
  yellow: { priceLevel: 1.22, assortment: "convenience", minAmountTag: true },
  "super-yuda": { priceLevel: 0.95, assortment: "discounter" },
  "fresh-market": { priceLevel: 1.02, assortment: "supermarket", itemId: true, truncateNames: 20 },
  "stop-market": { priceLevel: 1.03, assortment: "supermarket", storesCode: "72906390", storesFileCode: "0000072906390" },
  politzer: { priceLevel: 0.97, assortment: "supermarket", encoding: "windows-1255", storesEncoding: "windows-1255" },
  "salach-dabach": { priceLevel: 0.96, assortment: "supermarket", storesChainName: "Dabach" },
  "hazi-hinam": { priceLevel: 0.93, assortment: "discounter", layout: "new5", manufactureName: true, nullPromoPlaceholders: true },
  "super-pharm": { priceLevel: 1.1, assortment: "drugstore" },
  "good-pharm": { priceLevel: 1.0, assortment: "drugstore" },
  "king-store": { priceLevel: 0.94, assortment: "discounter", nullDeltas: true, countryStyle: "il2" },
  "maayan-2000": { priceLevel: 0.93, assortment: "discounter", zeroSizes: true, ending: "00" },
  "zol-vebegadol": { priceLevel: 0.9, assortment: "discounter", ext: ".GZ", storesExt: ".GZ" },
  "super-sapir": { priceLevel: 0.93, assortment: "discounter" },
  "shuk-hair": { priceLevel: 0.95, assortment: "discounter", layout: "new5" },
  "shefa-birkat-hashem": { priceLevel: 0.92, assortment: "discounter" },
  "super-bareket": { priceLevel: 0.97, assortment: "supermarket" },
  "netiv-hahesed": { priceLevel: 0.91, assortment: "discounter", compression: "gzip", storesCompression: "gzip", upperMaxQty: true },
  "city-market": { priceLevel: 1.0, assortment: "supermarket", manufactureName: true, ext: ".xml", compression: "none" },
  "meshnat-yosef": { priceLevel: 0.92, assortment: "discounter", noPromotions: true },
  "wolt-market": { priceLevel: 1.15, assortment: "online", singleLine: true, ext: "", storesExt: "", emptyPromoStore: true },
};

/** City Market's Kiryat Gat stores publish on a Bina portal under their own code. */
const BINA_CODES = new Set(["7290058288526", "7290058266241", "7290058288090"]);

/**
 * The publishing profile of a chain (for stores under `code`, which matters for chains that
 * publish through two portals).
 */
export function profileFor(chain: Chain, code: string = chain.chain_codes[0]!): Profile {
  const override = CHAINS[chain.slug] ?? { priceLevel: 1, assortment: "supermarket" as const };
  if (chain.slug === "city-market" && BINA_CODES.has(code)) {
    return { ...DEFAULTS.bina, priceLevel: override.priceLevel, assortment: override.assortment };
  }
  const dialect = override.dialect ?? FAMILY_DIALECT[chain.portal.family] ?? "cerberus";
  return { ...DEFAULTS[dialect], ...override, dialect };
}
