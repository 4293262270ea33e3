import type { Migration } from "./migrate.ts";

/**
 * Schema of `prices.sqlite`: everything an import can rebuild. Accounts live in their own
 * file (`accounts.sqlite`, see account-schema.ts) so deleting or rebuilding price data never
 * touches a customer.
 *
 * Conventions: money is integer agorot; times are ISO 8601 text with an offset
 * (`2026-11-22T05:30:00+02:00`) so they sort and compare as text within one zone rule;
 * store and chain codes are digit strings without leading zeros.
 */
export const PRICE_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "price data",
    sql: `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,   -- data_version, data_updated_at, source ('demo' | 'live')
  value TEXT NOT NULL
) STRICT;

-- Mirrors data/chains.json at every start (the registry is the source of truth).
CREATE TABLE chains (
  id      INTEGER PRIMARY KEY,
  slug    TEXT NOT NULL UNIQUE,
  name    TEXT NOT NULL,
  name_en TEXT NOT NULL
) STRICT;

-- Every 13-digit (or odd) code under which a chain publishes, normalised without leading zeros.
CREATE TABLE chain_codes (
  code     TEXT PRIMARY KEY,
  chain_id INTEGER NOT NULL REFERENCES chains(id)
) STRICT;

CREATE TABLE sub_chains (
  chain_id INTEGER NOT NULL REFERENCES chains(id),
  code     TEXT NOT NULL,
  name     TEXT,
  PRIMARY KEY (chain_id, code)
) STRICT;

CREATE TABLE stores (
  id             INTEGER PRIMARY KEY,
  chain_id       INTEGER NOT NULL REFERENCES chains(id),
  chain_code     TEXT NOT NULL,          -- the code the store was published under
  store_code     TEXT NOT NULL,          -- '1' for '001'
  sub_chain_code TEXT,
  name           TEXT,
  address        TEXT,
  city           TEXT,                   -- Hebrew city name (numeric CBS codes resolved)
  region         TEXT,                   -- lowercase slug, see data/cities.json
  zip            TEXT,
  store_type     INTEGER,                -- 1 physical, 2 online, 3 both
  updated_at     TEXT,
  prices_at      TEXT,                   -- file time of the newest price file loaded for the store
  promos_at      TEXT,                   -- file time of the newest promotion file loaded for the store
  UNIQUE (chain_code, store_code)
) STRICT;
CREATE INDEX stores_by_chain ON stores (chain_id);
CREATE INDEX stores_by_city ON stores (city);

-- One row per product. GTINs are shared by all chains (scope_chain_id = 0); chain-internal
-- codes (ItemType 0, or not a valid GTIN) are scoped to their chain and never merged.
CREATE TABLE products (
  id                  INTEGER PRIMARY KEY,
  scope_chain_id      INTEGER NOT NULL DEFAULT 0,
  barcode             TEXT NOT NULL,     -- as first published
  barcode_key         TEXT NOT NULL,     -- digits without leading zeros
  name                TEXT NOT NULL,
  manufacturer        TEXT,
  manufacture_country TEXT,
  unit_qty            TEXT,              -- the published unit word, e.g. 'גרם'
  size_amount         REAL,              -- normalised package size in size_unit
  size_unit           TEXT,              -- 'g' | 'ml' | 'unit' | NULL when unknown
  qty_in_package      REAL,
  is_weighted         INTEGER NOT NULL DEFAULT 0,
  category            TEXT,
  updated_at          TEXT NOT NULL,
  UNIQUE (scope_chain_id, barcode_key)
) STRICT;
CREATE INDEX products_by_barcode ON products (barcode_key);

-- The price now, per store and product. A PriceFull replaces a store's rows; a Price updates them.
CREATE TABLE price_current (
  store_id       INTEGER NOT NULL,
  product_id     INTEGER NOT NULL,
  price          INTEGER NOT NULL,       -- agorot
  updated_at     TEXT NOT NULL,          -- PriceUpdateDate, or the file time when absent/junk
  allow_discount INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (store_id, product_id)
) WITHOUT ROWID, STRICT;
CREATE INDEX price_current_by_product ON price_current (product_id, price);

-- Change-only history: a row when a store's price for a product changes; price NULL = no longer sold.
CREATE TABLE price_history (
  product_id INTEGER NOT NULL,
  store_id   INTEGER NOT NULL,
  valid_from TEXT NOT NULL,
  price      INTEGER,
  PRIMARY KEY (product_id, store_id, valid_from)
) WITHOUT ROWID, STRICT;

CREATE TABLE promotions (
  id                  INTEGER PRIMARY KEY,
  chain_id            INTEGER NOT NULL REFERENCES chains(id),
  chain_code          TEXT NOT NULL,
  promotion_code      TEXT NOT NULL,
  description         TEXT,
  starts_at           TEXT,
  ends_at             TEXT,
  updated_at          TEXT,
  reward_type         INTEGER,
  discount_type       INTEGER,           -- 0 relative (rate), 1 absolute (price)
  min_qty             REAL,
  max_qty             REAL,
  discounted_price    INTEGER,           -- agorot, the price of min_qty units together
  discount_rate       REAL,              -- fraction 0..1
  min_purchase_amount INTEGER,           -- agorot
  is_club_only        INTEGER NOT NULL DEFAULT 0,
  is_coupon           INTEGER NOT NULL DEFAULT 0,
  is_weighted         INTEGER NOT NULL DEFAULT 0,
  allow_multiple      INTEGER NOT NULL DEFAULT 0,
  gift_count          INTEGER,
  club_ids            TEXT,              -- JSON array of published club ids
  remarks             TEXT,
  UNIQUE (chain_code, promotion_code)
) STRICT;
CREATE INDEX promotions_by_chain ON promotions (chain_id, starts_at);

-- Items of a promotion; per-item overrides (2026 grouped format) when not NULL.
CREATE TABLE promotion_items (
  promotion_id     INTEGER NOT NULL,
  product_id       INTEGER NOT NULL,
  is_gift          INTEGER NOT NULL DEFAULT 0,
  min_qty          REAL,
  max_qty          REAL,
  discounted_price INTEGER,
  discount_rate    REAL,
  PRIMARY KEY (promotion_id, product_id)
) WITHOUT ROWID, STRICT;
CREATE INDEX promotion_items_by_product ON promotion_items (product_id);

-- The stores a promotion runs in (a PromoFull is per store; the same promotion id spans stores).
CREATE TABLE promotion_stores (
  promotion_id INTEGER NOT NULL,
  store_id     INTEGER NOT NULL,
  PRIMARY KEY (promotion_id, store_id)
) WITHOUT ROWID, STRICT;
CREATE INDEX promotion_stores_by_store ON promotion_stores (store_id);

-- Per chain and product: figures of the chain's stores, refreshed at the end of every import
-- (src/db/chain-products.ts). Serves the catalog in barcode order without scanning price_current.
CREATE TABLE chain_products (
  chain_id    INTEGER NOT NULL,
  barcode     TEXT NOT NULL,
  product_id  INTEGER NOT NULL,
  store_count INTEGER NOT NULL,
  price_min   INTEGER NOT NULL,
  price_max   INTEGER NOT NULL,
  price_mode  INTEGER NOT NULL,          -- the chain price: most common shelf price (tie → lower), Eilat left out unless only Eilat
  PRIMARY KEY (chain_id, barcode, product_id)
) WITHOUT ROWID, STRICT;
CREATE INDEX chain_products_by_product ON chain_products (product_id);

CREATE TABLE import_runs (
  id          INTEGER PRIMARY KEY,
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  origin      TEXT NOT NULL,             -- 'cli' | 'demo' | 'fetch' | 'backfill'
  status      TEXT NOT NULL,             -- 'running' | 'ok' | 'partial' | 'failed'
  files       INTEGER NOT NULL DEFAULT 0,
  rows        INTEGER NOT NULL DEFAULT 0,
  error       TEXT
) STRICT;

CREATE TABLE import_files (
  run_id     INTEGER NOT NULL REFERENCES import_runs(id),
  file_name  TEXT NOT NULL,
  file_type  TEXT,                       -- 'stores' | 'pricefull' | 'price' | 'promofull' | 'promo'
  chain_code TEXT,
  chain_slug TEXT,
  store_code TEXT,
  file_time  TEXT,
  bytes      INTEGER,
  rows       INTEGER NOT NULL DEFAULT 0,
  status     TEXT NOT NULL,              -- 'ok' | 'partial' | 'rejected' | 'skipped'
  reason     TEXT
) STRICT;
CREATE INDEX import_files_by_run ON import_files (run_id);

-- Per-chain health of the live sources and of imports.
CREATE TABLE chain_health (
  chain_slug      TEXT PRIMARY KEY,
  last_attempt_at TEXT,
  last_success_at TEXT,
  last_data_at    TEXT,                  -- newest file time imported for the chain
  files_fetched   INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  zero_rows       INTEGER NOT NULL DEFAULT 0  -- 1 when a file of the chain parsed to zero rows
) STRICT;

-- Files already downloaded, so a fetch skips them (by name and size).
CREATE TABLE fetched_files (
  chain_slug TEXT NOT NULL,
  file_name  TEXT NOT NULL,
  bytes      INTEGER NOT NULL,
  fetched_at TEXT NOT NULL,
  PRIMARY KEY (chain_slug, file_name)
) STRICT;
`,
  },
  {
    version: 2,
    name: "chain_products covering index by product",
    // Search pages, the basket and the catalog read a product's figures at every chain; with the
    // figures in the index no table row is looked up (20 products: ~1.7 ms → ~0.2 ms).
    sql: `CREATE INDEX chain_products_by_product_figures ON chain_products (product_id, chain_id, price_mode, store_count, price_min, price_max);
          DROP INDEX chain_products_by_product;`,
  },
  {
    version: 3,
    name: "import_runs.duration_ms",
    // Run times are ISO strings to the second; a measured duration lets metrics tell a 0.4 s
    // import from a 1.4 s one. NULL on runs recorded before (their timestamps stand in).
    sql: `ALTER TABLE import_runs ADD COLUMN duration_ms INTEGER;`,
  },
  {
    version: 4,
    name: "promotion item lists per store, pending items, one promotion per chain, closed stores",
    // Stores of a chain can list different items under one promotion id: each distinct list is
    // an item list (list_id, unique across promotions), and each store links to the one its file
    // listed. An item whose product no price file has published yet is kept with its code
    // (product_id NULL) and linked when one does. A chain publishing under several codes has one
    // promotion per id (the rows of its other codes become item lists of the first). A store
    // missing from its chain's newer full Stores list is closed.
    sql: `
CREATE TABLE promotion_items_v4 (
  promotion_id     INTEGER NOT NULL,
  list_id          INTEGER NOT NULL,             -- the item list (promotion_stores.list_id)
  item_key         TEXT NOT NULL,                -- the published item code without leading zeros
  is_gift          INTEGER NOT NULL DEFAULT 0,
  item_scope       INTEGER NOT NULL DEFAULT 0,   -- the identity's scope: 0 a shared GTIN, else the chain id
  gtin_like        INTEGER NOT NULL DEFAULT 0,   -- 1: a valid GTIN the file marked internal
  product_id       INTEGER,                      -- NULL until a price file publishes the product
  min_qty          REAL,
  max_qty          REAL,
  discounted_price INTEGER,
  discount_rate    REAL,
  PRIMARY KEY (list_id, item_key, is_gift)
) WITHOUT ROWID, STRICT;
INSERT INTO promotion_items_v4 (promotion_id, list_id, item_key, is_gift, item_scope, product_id, min_qty, max_qty, discounted_price, discount_rate)
  SELECT (SELECT min(k.id) FROM promotions k WHERE k.chain_id = pr.chain_id AND k.promotion_code = pr.promotion_code), pi.promotion_id,
         p.barcode_key, pi.is_gift, p.scope_chain_id, pi.product_id, pi.min_qty, pi.max_qty, pi.discounted_price, pi.discount_rate
    FROM promotion_items pi JOIN promotions pr ON pr.id = pi.promotion_id JOIN products p ON p.id = pi.product_id
   WHERE true
  ON CONFLICT DO NOTHING;
DROP TABLE promotion_items;
ALTER TABLE promotion_items_v4 RENAME TO promotion_items;
CREATE INDEX promotion_items_by_product ON promotion_items (product_id);
CREATE INDEX promotion_items_pending ON promotion_items (item_key) WHERE product_id IS NULL;

CREATE TABLE promotion_stores_v4 (
  promotion_id INTEGER NOT NULL,
  store_id     INTEGER NOT NULL,
  list_id      INTEGER NOT NULL,
  PRIMARY KEY (promotion_id, store_id)
) WITHOUT ROWID, STRICT;
INSERT INTO promotion_stores_v4 (promotion_id, store_id, list_id)
  SELECT (SELECT min(k.id) FROM promotions k WHERE k.chain_id = pr.chain_id AND k.promotion_code = pr.promotion_code), ps.store_id, ps.promotion_id
    FROM promotion_stores ps JOIN promotions pr ON pr.id = ps.promotion_id
   WHERE true
  ON CONFLICT DO NOTHING;
DROP TABLE promotion_stores;
ALTER TABLE promotion_stores_v4 RENAME TO promotion_stores;
CREATE INDEX promotion_stores_by_store ON promotion_stores (store_id);
CREATE INDEX promotion_stores_by_list ON promotion_stores (list_id);

-- Each item list of a promotion, with a hash of the list as published (stores listing the same items share it).
CREATE TABLE promotion_lists (
  list_id      INTEGER PRIMARY KEY,
  promotion_id INTEGER NOT NULL,
  items_hash   TEXT NOT NULL
) STRICT;
CREATE INDEX promotion_lists_by_hash ON promotion_lists (promotion_id, items_hash);
INSERT INTO promotion_lists (list_id, promotion_id, items_hash)
  SELECT list_id, min(promotion_id), 'v3' FROM promotion_stores GROUP BY list_id;

DELETE FROM promotions WHERE id NOT IN (SELECT promotion_id FROM promotion_stores);
CREATE UNIQUE INDEX promotions_by_code ON promotions (chain_id, promotion_code);

ALTER TABLE stores ADD COLUMN closed_at TEXT;   -- time of the full Stores list that no longer listed it; NULL = open
ALTER TABLE stores ADD COLUMN listed_at TEXT;   -- time of the newest Stores list that listed it
`,
  },
  {
    version: 5,
    name: "product identity: chains' names, generic products",
    // The served name is chosen from every chain's published name (src/identity/names.ts);
    // generic products (products.scope_chain_id = -1, barcode 'g-…') group loose produce across
    // chains (src/identity/produce-groups.ts). Both are filled by the next import: it notes each
    // chain's names as it reads them and, finding no produce_groups_version in meta, groups every item.
    sql: `
CREATE TABLE product_names (
  product_id   INTEGER NOT NULL,
  chain_id     INTEGER NOT NULL,
  name         TEXT NOT NULL,          -- the chain's newest published name
  manufacturer TEXT,
  PRIMARY KEY (product_id, chain_id)
) WITHOUT ROWID, STRICT;

CREATE TABLE generic_members (
  product_id INTEGER PRIMARY KEY,      -- a chain's item (or a weighed GTIN item)
  generic_id INTEGER NOT NULL          -- products.id of its generic product
) STRICT;
CREATE INDEX generic_members_by_generic ON generic_members (generic_id);`,
  },
  {
    version: 6,
    name: "stores.latitude, stores.longitude",
    // The coordinates a Stores file publishes (Matrix/Laib `Latitude`/`Longitude`), when they
    // are numbers inside Israel; NULL otherwise (the store is then placed at its city's centre,
    // flagged approximate: src/pricing/locations.ts).
    sql: `ALTER TABLE stores ADD COLUMN latitude REAL;
          ALTER TABLE stores ADD COLUMN longitude REAL;`,
  },
  {
    version: 7,
    name: "a promotion is its chain, its id and what the files say of it; when each chain last published a name",
    // Chains reuse promotion ids (Osher Ad: one id names different promotions in different stores
    // and years), so a promotion row is (chain, id, identity) with identity = description and start
    // as published (src/ingest/load/promotion-identity.ts); the table's old UNIQUE (chain_code,
    // promotion_code) goes with a rebuild. product_names.published_at is the time of the newest file
    // in which the chain published that name (unix ms; NULL on rows from before: taken as current),
    // so that an old longer name does not beat a current one (src/identity/names.ts).
    sql: `
CREATE TABLE promotions_v7 (
  id                  INTEGER PRIMARY KEY,
  chain_id            INTEGER NOT NULL REFERENCES chains(id),
  chain_code          TEXT NOT NULL,
  promotion_code      TEXT NOT NULL,
  identity            TEXT NOT NULL,     -- description || char(31) || starts_at, as published
  description         TEXT,
  starts_at           TEXT,
  ends_at             TEXT,
  updated_at          TEXT,
  reward_type         INTEGER,
  discount_type       INTEGER,           -- 0 relative (rate), 1 absolute (price)
  min_qty             REAL,
  max_qty             REAL,
  discounted_price    INTEGER,           -- agorot, the price of min_qty units together
  discount_rate       REAL,              -- fraction 0..1
  min_purchase_amount INTEGER,           -- agorot
  is_club_only        INTEGER NOT NULL DEFAULT 0,
  is_coupon           INTEGER NOT NULL DEFAULT 0,
  is_weighted         INTEGER NOT NULL DEFAULT 0,
  allow_multiple      INTEGER NOT NULL DEFAULT 0,
  gift_count          INTEGER,
  club_ids            TEXT,              -- JSON array of published club ids
  remarks             TEXT
) STRICT;
INSERT INTO promotions_v7 (id, chain_id, chain_code, promotion_code, identity, description, starts_at, ends_at, updated_at, reward_type,
                           discount_type, min_qty, max_qty, discounted_price, discount_rate, min_purchase_amount, is_club_only,
                           is_coupon, is_weighted, allow_multiple, gift_count, club_ids, remarks)
  SELECT id, chain_id, chain_code, promotion_code, coalesce(description, '') || char(31) || coalesce(starts_at, ''), description,
         starts_at, ends_at, updated_at, reward_type, discount_type, min_qty, max_qty, discounted_price, discount_rate,
         min_purchase_amount, is_club_only, is_coupon, is_weighted, allow_multiple, gift_count, club_ids, remarks
    FROM promotions;
DROP TABLE promotions;
ALTER TABLE promotions_v7 RENAME TO promotions;
CREATE INDEX promotions_by_chain ON promotions (chain_id, starts_at);
CREATE UNIQUE INDEX promotions_by_identity ON promotions (chain_id, promotion_code, identity);

ALTER TABLE product_names ADD COLUMN published_at INTEGER;`,
  },
  {
    version: 8,
    name: "chain_health: fetch status, reason, newest file, next run",
    // The collection loop's view of each chain (src/ingest/sources/collection.ts): whether its
    // portal answers (`ok`, `failing`, `blocked`) and why, the newest file time its portal lists,
    // when it is listed next, and when a stale warning was logged (once per staleness).
    sql: `ALTER TABLE chain_health ADD COLUMN fetch_status TEXT;
          ALTER TABLE chain_health ADD COLUMN status_reason TEXT;
          ALTER TABLE chain_health ADD COLUMN newest_file_at TEXT;
          ALTER TABLE chain_health ADD COLUMN next_run_at TEXT;
          ALTER TABLE chain_health ADD COLUMN stale_warned_at TEXT;`,
  },
];
