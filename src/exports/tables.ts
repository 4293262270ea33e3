import type { Database } from "bun:sqlite";
import type { CsvValue } from "./csv.ts";
import { formatIls } from "../lib/time.ts";
import { localityCentre } from "../geo/locality-centroids.ts";

/** A column of an export file: its header and what it holds (docs/operations.md and OpenAPI list these). */
export interface ExportColumn {
  name: string;
  about: string;
}

/** One table of a daily export: a gzipped CSV file, its columns and how its rows are read. */
export interface ExportTable {
  /** File name in the export's folder, e.g. `prices.csv.gz`. */
  file: string;
  about: string;
  columns: readonly ExportColumn[];
  /** The rows, read within the caller's read transaction (one consistent snapshot for all tables). */
  rows(db: Database, at: string): Iterable<CsvValue[]>;
}

const money = (agorot: number | null) => (agorot === null ? null : formatIls(agorot));
const bool = (flag: number | null) => (flag === null ? null : flag === 1);
const STORE_TYPES: Record<number, string> = { 1: "physical", 2: "online", 3: "both" };

/** A product's chain for a chain-internal code (scope), empty for a GTIN shared by all chains. */
const PRODUCT_CHAIN = "CASE WHEN p.scope_chain_id = 0 THEN NULL ELSE (SELECT slug FROM chains WHERE id = p.scope_chain_id) END";

function* mapRows<T>(rows: Iterable<T>, map: (row: T) => CsvValue[]): Iterable<CsvValue[]> {
  for (const row of rows) yield map(row);
}

/**
 * The tables of a daily export, in the order they are written. Identifiers are the API's: a
 * chain's `chain_id` slug, a store's `store_id` within its chain, a product's `barcode` with its
 * `product_chain_id` when the code is a chain-internal one (empty for a GTIN) — the pair to pass
 * to /prices/. Money is ILS with two decimals; times ISO 8601 with an offset; empty = unknown.
 */
export const EXPORT_TABLES: readonly ExportTable[] = [
  {
    file: "chains.csv.gz",
    about: "Every chain of the registry, also those with no data yet (as GET /api/v1/chains/).",
    columns: [
      { name: "chain_id", about: "The chain's slug, e.g. `rami-levy`" },
      { name: "name", about: "Hebrew name" },
      { name: "name_en", about: "English name" },
      { name: "chain_codes", about: "The 13-digit codes it publishes under, separated by spaces" },
      { name: "store_count", about: "Stores of the chain in the data" },
      { name: "product_count", about: "The chain's own products its stores price (generic products left out, as in GET /api/v1/chains/)" },
    ],
    rows: (db) =>
      mapRows(
        db
          .query(
            `SELECT c.slug, c.name, c.name_en,
                    (SELECT group_concat(code, ' ') FROM (SELECT code FROM chain_codes k WHERE k.chain_id = c.id ORDER BY code)) AS codes,
                    (SELECT count(*) FROM stores s WHERE s.chain_id = c.id) AS stores,
                    (SELECT count(*) FROM chain_products cp JOIN products p ON p.id = cp.product_id WHERE cp.chain_id = c.id AND p.scope_chain_id <> -1) AS products
               FROM chains c ORDER BY c.slug`,
          )
          .iterate() as Iterable<{ slug: string; name: string; name_en: string; codes: string | null; stores: number; products: number }>,
        (r) => [r.slug, r.name, r.name_en, r.codes, r.stores, r.products],
      ),
  },
  {
    file: "stores.csv.gz",
    about: "Every store of the data (as GET /api/v1/stores/).",
    columns: [
      { name: "chain_id", about: "The chain's slug" },
      { name: "store_id", about: "The chain's store code, without leading zeros" },
      { name: "sub_chain_id", about: "The sub-chain code the store is published under" },
      { name: "branch_name", about: "The branch's name as published" },
      { name: "address", about: "Street address as published" },
      { name: "city", about: "Hebrew city name (canonical spelling when known)" },
      { name: "region", about: "Region slug (`tel-aviv`, `haifa`, …); empty when the city is unknown" },
      { name: "zip", about: "ZIP code as published" },
      { name: "store_type", about: "`physical`, `online` or `both` (StoreType 1, 2, 3)" },
      { name: "status", about: "`open`, or `closed` once a newer full Stores list of the chain no longer lists it (or its code fell silent: docs/api.md, Stores close)" },
      { name: "latitude", about: "WGS84 degrees: as the Stores file published, else the city's centre" },
      { name: "longitude", about: "WGS84 degrees, likewise" },
      { name: "coordinates_approximate", about: "`true` when latitude/longitude are the city's centre, `false` when published by the chain; empty when unknown" },
      { name: "prices_at", about: "Time of the newest price file loaded for the store" },
    ],
    rows: (db) =>
      mapRows(
        db
          .query(
            `SELECT c.slug, s.store_code, s.sub_chain_code, s.name, s.address, s.city, s.region, s.zip, s.store_type, s.latitude, s.longitude, s.prices_at,
                    s.closed_at
               FROM stores s JOIN chains c ON c.id = s.chain_id ORDER BY c.slug, length(s.store_code), s.store_code`,
          )
          .iterate() as Iterable<{
          slug: string;
          store_code: string;
          sub_chain_code: string | null;
          name: string | null;
          address: string | null;
          city: string | null;
          region: string | null;
          zip: string | null;
          store_type: number | null;
          latitude: number | null;
          longitude: number | null;
          prices_at: string | null;
          closed_at: string | null;
        }>,
        (r) => {
          const published = r.latitude !== null && r.longitude !== null;
          const centre = published ? undefined : localityCentre(r.city);
          const lat = published ? r.latitude : (centre?.lat ?? null);
          const lon = published ? r.longitude : (centre?.lon ?? null);
          return [
            r.slug,
            r.store_code,
            r.sub_chain_code,
            r.name,
            r.address,
            r.city || null,
            r.region || null,
            r.zip,
            r.store_type === null ? null : (STORE_TYPES[r.store_type] ?? null),
            r.closed_at === null ? "open" : "closed",
            lat,
            lon,
            lat === null ? null : !published,
            r.prices_at,
          ];
        },
      ),
  },
  {
    file: "products.csv.gz",
    about: "Every product some store prices now (the products /prices/ answers for).",
    columns: [
      { name: "barcode", about: "GTIN or chain-internal code, as first published" },
      { name: "product_chain_id", about: "For a chain-internal code: the chain whose item it is (pass it as `chain_id`); empty for a GTIN" },
      { name: "name", about: "The product's name" },
      { name: "manufacturer", about: "Manufacturer as published" },
      { name: "manufacture_country", about: "Country of manufacture as published" },
      { name: "category", about: "Category from the service's keyword classifier" },
      { name: "unit_qty", about: "The published unit word, e.g. `גרם`" },
      { name: "size", about: "Normalised package size, in `unit`" },
      { name: "unit", about: "`g`, `ml` or `unit`; empty when unknown" },
      { name: "qty_in_package", about: "Units in the package as published" },
      { name: "is_weighted", about: "`true` for items sold by weight" },
    ],
    rows: (db) =>
      mapRows(
        db
          .query(
            `SELECT p.barcode, ${PRODUCT_CHAIN} AS chain, p.name, p.manufacturer, p.manufacture_country, p.category, p.unit_qty, p.size_amount,
                    p.size_unit, p.qty_in_package, p.is_weighted
               FROM products p WHERE p.id IN (SELECT product_id FROM chain_products) ORDER BY p.barcode_key, p.scope_chain_id`,
          )
          .iterate() as Iterable<{
          barcode: string;
          chain: string | null;
          name: string;
          manufacturer: string | null;
          manufacture_country: string | null;
          category: string | null;
          unit_qty: string | null;
          size_amount: number | null;
          size_unit: string | null;
          qty_in_package: number | null;
          is_weighted: number;
        }>,
        (r) => [r.barcode, r.chain, r.name, r.manufacturer, r.manufacture_country, r.category, r.unit_qty, r.size_amount, r.size_unit, r.qty_in_package, bool(r.is_weighted)],
      ),
  },
  {
    file: "prices.csv.gz",
    about: "The current shelf price of every product at every store (before promotions; see promotions).",
    columns: [
      { name: "chain_id", about: "The chain's slug" },
      { name: "store_id", about: "The chain's store code" },
      { name: "barcode", about: "The product's barcode (see products)" },
      { name: "product_chain_id", about: "The product's chain for a chain-internal code; empty for a GTIN" },
      { name: "price_ils", about: "Shelf price in ILS, e.g. `12.90`" },
      { name: "updated_at", about: "When the chain last changed the price (its PriceUpdateDate, else the file's time)" },
      { name: "allow_discount", about: "`false` when the chain marks the item as excluded from discounts" },
    ],
    rows: (db) =>
      mapRows(
        db
          .query(
            `SELECT c.slug, s.store_code, p.barcode, ${PRODUCT_CHAIN} AS chain, pc.price, pc.updated_at, pc.allow_discount
               FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN chains c ON c.id = s.chain_id JOIN products p ON p.id = pc.product_id
              ORDER BY pc.store_id, pc.product_id`,
          )
          .iterate() as Iterable<{ slug: string; store_code: string; barcode: string; chain: string | null; price: number; updated_at: string; allow_discount: number }>,
        (r) => [r.slug, r.store_code, r.barcode, r.chain, money(r.price), r.updated_at, bool(r.allow_discount)],
      ),
  },
  {
    file: "promotions.csv.gz",
    about: "The promotions not yet ended when the export was made (active or announced).",
    columns: [
      { name: "promotion_id", about: "`<chain_id>:<the chain's promotion id>` (as in the API)" },
      { name: "chain_id", about: "The chain's slug" },
      { name: "description", about: "As published" },
      { name: "starts_at", about: "Start time" },
      { name: "ends_at", about: "End time; empty for open-ended" },
      { name: "reward_type", about: "The published RewardType code" },
      { name: "min_qty", about: "Units to buy for the promotion" },
      { name: "max_qty", about: "Units the promotion applies to at most" },
      { name: "discounted_price_ils", about: "Price of `min_qty` units together, ILS" },
      { name: "discount_rate", about: "Discount as a fraction 0–1" },
      { name: "min_purchase_ils", about: "Minimum purchase for the promotion, ILS" },
      { name: "is_club_only", about: "`true` for members of the chain's club only" },
      { name: "is_coupon", about: "`true` when a coupon is needed" },
      { name: "store_count", about: "Stores the promotion runs in" },
      { name: "item_count", about: "Items in promotion_items" },
    ],
    rows: (db, at) =>
      mapRows(
        db
          .query(
            `SELECT c.slug, pr.promotion_code, pr.description, pr.starts_at, pr.ends_at, pr.reward_type, pr.min_qty, pr.max_qty, pr.discounted_price,
                    pr.discount_rate, pr.min_purchase_amount, pr.is_club_only, pr.is_coupon,
                    (SELECT count(*) FROM promotion_stores ps WHERE ps.promotion_id = pr.id) AS stores,
                    (SELECT count(DISTINCT pi.item_key || ':' || pi.item_scope || ':' || pi.is_gift) FROM promotion_items pi WHERE pi.promotion_id = pr.id) AS items
               FROM promotions pr JOIN chains c ON c.id = pr.chain_id
              WHERE pr.ends_at IS NULL OR julianday(pr.ends_at) > julianday(?)
              ORDER BY c.slug, pr.promotion_code`,
          )
          .iterate(at) as Iterable<Record<string, string | number | null>>,
        (r) => [
          `${r.slug}:${r.promotion_code}`,
          r.slug,
          r.description,
          r.starts_at,
          r.ends_at,
          r.reward_type,
          r.min_qty,
          r.max_qty,
          money(r.discounted_price as number | null),
          r.discount_rate,
          money(r.min_purchase_amount as number | null),
          bool(r.is_club_only as number),
          bool(r.is_coupon as number),
          r.stores,
          r.items,
        ],
      ),
  },
  {
    file: "promotion_items.csv.gz",
    about: "The items of the promotions in promotions.csv.gz, one row per promotion and item.",
    columns: [
      { name: "promotion_id", about: "The promotion (promotions.csv.gz)" },
      { name: "barcode", about: "The item's barcode (its published code while no price file has published the product)" },
      { name: "product_chain_id", about: "The item's chain for a chain-internal code; empty for a GTIN" },
      { name: "is_gift", about: "`true` for a gift item (given, not discounted)" },
      { name: "min_qty", about: "This item's own minimum quantity when the promotion sets one per item" },
      { name: "max_qty", about: "This item's own maximum quantity, likewise" },
      { name: "discounted_price_ils", about: "This item's own discounted price, likewise" },
      { name: "discount_rate", about: "This item's own discount rate, likewise" },
    ],
    rows: (db, at) =>
      mapRows(
        db
          .query(
            // Items are kept per item list (stores of a chain can list different items under one
            // promotion): one row per item of the promotion, whatever lists name it. An item no
            // price file has published yet has its published code as barcode.
            `SELECT c.slug, pr.promotion_code, coalesce(min(p.barcode), pi.item_key) AS barcode,
                    min(ic.slug) AS chain, pi.is_gift,
                    min(pi.min_qty) AS min_qty, min(pi.max_qty) AS max_qty, min(pi.discounted_price) AS discounted_price, min(pi.discount_rate) AS discount_rate
               FROM promotion_items pi JOIN promotions pr ON pr.id = pi.promotion_id JOIN chains c ON c.id = pr.chain_id LEFT JOIN products p ON p.id = pi.product_id
                    LEFT JOIN chains ic ON ic.id = CASE WHEN p.scope_chain_id > 0 THEN p.scope_chain_id ELSE pi.item_scope END
              WHERE pr.ends_at IS NULL OR julianday(pr.ends_at) > julianday(?)
              GROUP BY pr.id, pi.item_key, pi.item_scope, pi.is_gift
              ORDER BY c.slug, pr.promotion_code, pi.item_key, pi.item_scope, pi.is_gift`,
          )
          .iterate(at) as Iterable<Record<string, string | number | null>>,
        (r) => [`${r.slug}:${r.promotion_code}`, r.barcode, r.chain, bool(r.is_gift as number), r.min_qty, r.max_qty, money(r.discounted_price as number | null), r.discount_rate],
      ),
  },
];

export const MANIFEST_FILE = "manifest.json";
