import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { bumpDataVersion } from "../../src/data/data-state.ts";
import { loadRegistry, normaliseCode } from "../../src/registry.ts";
import { israelLocalToDate, toIsraelIso } from "../../src/lib/time.ts";
import citiesJson from "../../data/cities.json" with { type: "json" };
import { seeded, unit } from "./rng.ts";
import { syntheticProducts } from "./products.ts";

/** Bump when the generator changes so cached databases are rebuilt. */
export const GENERATOR_VERSION = "national-6";

export interface NationalPlan {
  chains: number;
  stores: number;
  products: number;
  /** Average products per store (≈ 7 M rows at 2,000 stores). */
  assortment: number;
}

/** The national-size plan, scaled (1 = ≈30 chains, 2,000 stores, 60k products, ≈7 M price rows). */
export function nationalPlan(scale: number): NationalPlan {
  return {
    chains: Math.max(3, Math.min(30, Math.round(30 * Math.sqrt(scale)))),
    stores: Math.max(6, Math.round(2000 * scale)),
    products: Math.max(2000, Math.round(60_000 * Math.min(1, Math.sqrt(scale)))),
    assortment: 3500,
  };
}

export interface BuildFigures {
  chains: number;
  stores: number;
  products: number;
  priceRows: number;
  historyRows: number;
  promotions: number;
  promotionStoreRows: number;
  chainProductRows: number;
  seconds: number;
}

interface StoreSpec {
  id: number;
  chainIndex: number;
  chainId: number;
  code: string;
  city: string;
  region: string;
  eilat: boolean;
  assortment: number;
}

const cities = citiesJson as { name: string; region: string }[];
const EILAT = "אילת";

/** Schema fingerprint: a cached database is rebuilt when the price schema changes. */
export function schemaFingerprint(): string {
  const text = PRICE_MIGRATIONS.map((m) => m.sql).join("\n");
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 16);
}

/** Rounds agorot to a shelf-looking price ending in .90 (at least 0.90). */
function shelfPrice(agorot: number): number {
  return Math.max(90, Math.round(agorot / 100) * 100 - 10);
}

/** Inserts rows through a multi-row prepared INSERT, `batch` rows per statement. */
class BatchInsert {
  private readonly full;
  private buffer: (string | number | null)[] = [];
  private rows = 0;
  total = 0;
  constructor(
    private readonly db: Database,
    private readonly head: string,
    private readonly columns: number,
    private readonly batch = 400,
  ) {
    this.full = db.prepare(this.sql(batch));
  }
  private sql(n: number): string {
    const one = "(" + Array(this.columns).fill("?").join(",") + ")";
    return `${this.head} VALUES ${Array(n).fill(one).join(",")}`;
  }
  add(...values: (string | number | null)[]): void {
    for (const v of values) this.buffer.push(v);
    this.rows++;
    this.total++;
    if (this.rows === this.batch) {
      this.full.run(...this.buffer);
      this.buffer = [];
      this.rows = 0;
    }
  }
  flush(): void {
    if (this.rows > 0) this.db.prepare(this.sql(this.rows)).run(...this.buffer);
    this.buffer = [];
    this.rows = 0;
  }
}

/**
 * Scale factor c so that Σ min(1, c·w(p)) over products ≈ target, for decreasing weights
 * w (popular products are sold in nearly every store).
 */
function inclusionScale(weights: Float64Array, suffix: Float64Array, target: number): number {
  let lo = 0;
  let hi = 1e12;
  for (let i = 0; i < 100; i++) {
    const c = (lo + hi) / 2;
    // products with c·w ≥ 1 form a prefix (weights decrease).
    let k = 0;
    let step = 1 << 20;
    while (step > 0) {
      if (k + step <= weights.length && c * weights[k + step - 1]! >= 1) k += step;
      step >>= 1;
    }
    const sum = k + c * suffix[k]!;
    if (sum < target) lo = c;
    else hi = c;
  }
  return (lo + hi) / 2;
}

/**
 * Builds the synthetic national database at `file` with SQL only (no XML): stores, products,
 * ≈7 M current prices in primary-key order, change-only history, promotions; then the
 * chain_products summary and a data version, as an import would leave them.
 */
export function buildNational(file: string, scale: number, now: Date, say: (msg: string) => void = () => {}): BuildFigures {
  const started = performance.now();
  const plan = nationalPlan(scale);
  const building = file + ".building";
  rmSync(building, { force: true });
  mkdirSync(join(file, ".."), { recursive: true });
  const db = new Database(building, { create: true, strict: true });
  db.run("PRAGMA journal_mode = OFF");
  db.run("PRAGMA synchronous = OFF");
  db.run("PRAGMA locking_mode = EXCLUSIVE");
  db.run("PRAGMA cache_size = -524288");
  db.run("PRAGMA temp_store = MEMORY");
  migrate(db, building, PRICE_MIGRATIONS);
  const registry = loadRegistry();
  const chainIds = syncRegistry(db, registry);
  const chains = registry.chains.filter((c) => c.active).slice(0, plan.chains);

  // Secondary indexes are dropped while loading and rebuilt at the end (faster than maintaining them).
  const indexes = db
    .query(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
          AND tbl_name IN ('price_current', 'price_history', 'promotion_items', 'promotion_stores', 'chain_products')`,
    )
    .all() as { name: string; sql: string }[];
  for (const index of indexes) db.run(`DROP INDEX ${index.name}`);

  const nowIso = toIsraelIso(now);
  const rnd = seeded(20261122);

  // Days back from today at 08:00 Israel time, for history dates.
  const today = nowIso.slice(0, 10).split("-").map(Number) as [number, number, number];
  const dayIso: string[] = [];
  for (let d = 0; d <= 480; d++) {
    const date = new Date(Date.UTC(today[0], today[1] - 1, today[2] - d));
    dayIso.push(toIsraelIso(israelLocalToDate(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), 8, 0, 0)));
  }

  // ---- stores: chain sizes follow a Zipf-like curve; ~1 % of stores in Eilat.
  const chainWeights = chains.map((_, i) => 1 / Math.pow(i + 1.5, 0.9));
  const weightSum = chainWeights.reduce((a, b) => a + b, 0);
  const chainAssortment = chains.map((_, i) => plan.assortment * (0.55 + 0.9 * unit(i, 5)));
  const stores: StoreSpec[] = [];
  const storeInsert = new BatchInsert(
    db,
    "INSERT INTO stores (id, chain_id, chain_code, store_code, sub_chain_code, name, address, city, region, zip, store_type, updated_at, prices_at)",
    13,
  );
  db.transaction(() => {
    let id = 1;
    chains.forEach((chain, ci) => {
      const count = ci === chains.length - 1 ? plan.stores - stores.length : Math.max(1, Math.round((plan.stores * chainWeights[ci]!) / weightSum));
      for (let n = 1; n <= count && stores.length < plan.stores; n++) {
        const eilat = unit(ci, n, 3) < 0.01 || (n === 7 && ci < 6);
        const city = eilat ? { name: EILAT, region: "south" } : cities[Math.floor(Math.pow(rnd(), 1.8) * cities.length)]!;
        const spec: StoreSpec = {
          id,
          chainIndex: ci,
          chainId: chainIds.get(chain.slug)!,
          code: String(n),
          city: city.name,
          region: city.region,
          eilat,
          assortment: Math.round(chainAssortment[ci]! * (0.6 + 0.8 * unit(ci, n, 4))),
        };
        stores.push(spec);
        storeInsert.add(id, spec.chainId, normaliseCode(chain.chain_codes[0]!), spec.code, "1", `${chain.name} ${city.name} ${n}`,
          `רחוב ${n} ${city.name}`, city.name, city.region, null, 1, nowIso, nowIso);
        id++;
      }
    });
    storeInsert.flush();
  })();
  say(`stores: ${stores.length} in ${chains.length} chains`);

  // ---- products: id = popularity rank + 1.
  const products = syntheticProducts(plan.products);
  const productInsert = new BatchInsert(
    db,
    "INSERT INTO products (id, scope_chain_id, barcode, barcode_key, name, manufacturer, manufacture_country, unit_qty, size_amount, size_unit, qty_in_package, is_weighted, category, updated_at)",
    14,
  );
  db.transaction(() => {
    products.forEach((p, i) => {
      productInsert.add(i + 1, 0, p.barcode, p.barcode, p.name, p.manufacturer, "ישראל", p.unitQty, p.sizeAmount, p.sizeUnit, 1, 0, p.category, nowIso);
    });
    productInsert.flush();
  })();
  say(`products: ${products.length}`);

  // ---- assortments: store s sells product p with probability min(1, c_s·w(p)).
  const P = products.length;
  const weights = new Float64Array(P);
  for (let p = 0; p < P; p++) weights[p] = Math.pow(p + 30, -0.85);
  const suffix = new Float64Array(P + 1);
  for (let p = P - 1; p >= 0; p--) suffix[p] = suffix[p + 1]! + weights[p]!;
  const sells: Uint8Array[] = stores.map((s) => {
    const c = inclusionScale(weights, suffix, Math.min(P, s.assortment));
    const row = new Uint8Array(P);
    for (let p = 0; p < P; p++) {
      const q = c * weights[p]!;
      row[p] = q >= 1 || unit(s.id, p, 11) < q ? 1 : 0;
    }
    return row;
  });

  // Chain-level price moves: every chain changes a product's price on the same days in all its stores.
  const chainFactor = chains.map((_, i) => 0.93 + 0.18 * unit(i, 9));
  const chainPrice = (ci: number, p: number, version: number) =>
    shelfPrice(products[p]!.basePrice * chainFactor[ci]! * (1 + 0.16 * (unit(ci, p, 21, version) - 0.5)));
  const changesOf = (ci: number, p: number) => {
    const h = unit(ci, p, 31);
    return h < 0.7 ? 0 : h < 0.9 ? 1 : h < 0.98 ? 2 : 3;
  };
  /** Days back of the chain's change points for a product, oldest first (the first is when it appeared). */
  const changeDays = (ci: number, p: number): number[] => {
    const first = 45 + Math.floor(unit(ci, p, 32) * 380);
    const days = [first];
    const changes = changesOf(ci, p);
    let prev = first;
    for (let k = 1; k <= changes; k++) {
      const next = Math.max(1, Math.floor(prev * (0.3 + 0.6 * unit(ci, p, 33, k))));
      if (next >= prev) break;
      days.push(next);
      prev = next;
    }
    return days;
  };
  const storePrice = (s: StoreSpec, p: number): number => {
    const base = chainPrice(s.chainIndex, p, changesOf(s.chainIndex, p));
    const r = unit(s.id, p, 22);
    let price = base;
    if (r >= 0.82 && r < 0.95) price = Math.max(90, base + (r < 0.885 ? -100 : 100));
    else if (r >= 0.95) price = shelfPrice(products[p]!.basePrice * (0.85 + 0.3 * unit(s.id, p, 23)));
    return s.eilat ? Math.round(price / 1.18) : price;
  };

  // ---- price_current in primary-key order (store, product).
  const priceInsert = new BatchInsert(db, "INSERT INTO price_current (store_id, product_id, price, updated_at, allow_discount)", 5, 500);
  db.transaction(() => {
    for (const s of stores) {
      const row = sells[s.id - 1]!;
      for (let p = 0; p < P; p++) {
        if (row[p] === 0) continue;
        const days = changeDays(s.chainIndex, p);
        priceInsert.add(s.id, p + 1, storePrice(s, p), dayIso[days[days.length - 1]!]!, 1);
      }
    }
    priceInsert.flush();
  })();
  say(`price_current: ${priceInsert.total} rows`);

  // ---- price_history in primary-key order (product, store, valid_from).
  const historyInsert = new BatchInsert(db, "INSERT INTO price_history (product_id, store_id, valid_from, price)", 4, 500);
  db.transaction(() => {
    for (let p = 0; p < P; p++) {
      for (const s of stores) {
        if (sells[s.id - 1]![p] === 0) continue;
        const days = changeDays(s.chainIndex, p);
        const last = days.length - 1;
        days.forEach((d, k) => {
          const price = k === last ? storePrice(s, p) : s.eilat ? Math.round(chainPrice(s.chainIndex, p, k) / 1.18) : chainPrice(s.chainIndex, p, k);
          historyInsert.add(p + 1, s.id, dayIso[d]!, price);
        });
      }
    }
    historyInsert.flush();
  })();
  say(`price_history: ${historyInsert.total} rows`);

  // ---- promotions: per chain, mostly chain-wide, some in part of the stores; mixed kinds.
  const promoInsert = db.prepare(
    `INSERT INTO promotions (id, chain_id, chain_code, promotion_code, description, starts_at, ends_at, updated_at, reward_type, discount_type,
                             min_qty, max_qty, discounted_price, discount_rate, min_purchase_amount, is_club_only, is_coupon, allow_multiple, identity)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?10, ?11, ?12, ?13, NULL, ?14, ?15, 0, coalesce(?5, '') || char(31) || coalesce(?6, ''))`,
  );
  const itemInsert = new BatchInsert(db, "INSERT INTO promotion_items (promotion_id, list_id, product_id, is_gift, item_key)", 5);
  const promoStoreInsert = new BatchInsert(db, "INSERT INTO promotion_stores (promotion_id, store_id, list_id)", 3, 500);
  const listInsert = db.prepare("INSERT INTO promotion_lists (list_id, promotion_id, items_hash) VALUES (?, ?, 'bench')");
  let promotions = 0;
  db.transaction(() => {
    let promoId = 1;
    chains.forEach((chain, ci) => {
      const chainStores = stores.filter((s) => s.chainIndex === ci);
      if (chainStores.length === 0) return;
      const count = Math.min(800, 60 + 3 * chainStores.length);
      for (let n = 0; n < count; n++, promoId++) {
        const kind = unit(ci, n, 41);
        const itemCount = kind < 0.5 ? 1 : unit(ci, n, 42) < 0.7 ? 2 + Math.floor(unit(ci, n, 43) * 9) : 10 + Math.floor(unit(ci, n, 43) * 50);
        const items = new Set<number>();
        for (let k = 0; items.size < itemCount && k < itemCount * 4; k++) {
          // Mildly skewed towards popular products: the most popular one is in ~2 promotions per chain.
          items.add(Math.floor(Math.pow(unit(ci, n, 44, k), 1.3) * Math.min(P, 8000)));
        }
        const first = [...items][0]!;
        const shelf = chainPrice(ci, first, changesOf(ci, first));
        const type = unit(ci, n, 45);
        let minQty = 1, maxQty: number | null = null, discounted: number | null = null, rate: number | null = null, club = 0, coupon = 0;
        let description: string;
        if (type < 0.4) {
          discounted = shelfPrice(shelf * 0.8);
          description = `${products[first]!.name.split(" ")[0]} ב-${(discounted / 100).toFixed(2)}`;
        } else if (type < 0.7) {
          minQty = 2 + Math.floor(unit(ci, n, 46) * 2);
          discounted = Math.round((shelf * minQty * 0.75) / 100) * 100;
          maxQty = unit(ci, n, 47) < 0.3 ? minQty * 2 : null;
          description = `${minQty} ב-${discounted / 100}`;
        } else if (type < 0.85) {
          rate = [0.1, 0.15, 0.2, 0.25, 0.3][Math.floor(unit(ci, n, 48) * 5)]!;
          description = `${Math.round(rate * 100)}% הנחה`;
        } else if (type < 0.95) {
          discounted = shelfPrice(shelf * 0.7);
          club = 1;
          description = `מועדון: ב-${(discounted / 100).toFixed(2)}`;
        } else {
          rate = 0.2;
          coupon = 1;
          description = "קופון 20%";
        }
        const expired = unit(ci, n, 49) < 0.05;
        const startsAt = dayIso[1 + Math.floor(unit(ci, n, 50) * 60)]!;
        const endsAt = expired
          ? dayIso[1]!
          : toIsraelIso(new Date(now.getTime() + (30 + Math.floor(unit(ci, n, 51) * 400)) * 86_400_000));
        promoInsert.run(promoId, chainIds.get(chain.slug)!, normaliseCode(chain.chain_codes[0]!), String(100000 + n), description, startsAt, endsAt, nowIso,
          discounted !== null ? 1 : 0, minQty, maxQty, discounted, rate, club, coupon);
        promotions++;
        listInsert.run(promoId, promoId);
        for (const p of [...items].sort((a, b) => a - b)) itemInsert.add(promoId, promoId, p + 1, 0, products[p]!.barcode);
        const everywhere = unit(ci, n, 52) < 0.65;
        for (const s of chainStores) {
          if (everywhere || unit(s.id, promoId, 53) < 0.5) promoStoreInsert.add(promoId, s.id, promoId);
        }
      }
    });
    itemInsert.flush();
    promoStoreInsert.flush();
  })();
  say(`promotions: ${promotions}, items ${itemInsert.total}, store links ${promoStoreInsert.total}`);

  say("rebuilding indexes");
  for (const index of indexes) db.run(index.sql);

  // ---- health, an import run, the chain_products summary and the data version (one transaction, as an import).
  let chainProductRows = 0;
  db.transaction(() => {
    const health = db.prepare(
      "INSERT INTO chain_health (chain_slug, last_attempt_at, last_success_at, last_data_at, files_fetched) VALUES (?, ?, ?, ?, ?)",
    );
    chains.forEach((chain, ci) => {
      // Two chains lag two days behind, so freshness figures differ.
      const at = ci % 13 === 12 ? toIsraelIso(new Date(now.getTime() - 2 * 86_400_000)) : toIsraelIso(new Date(now.getTime() - (ci % 5) * 1_800_000));
      health.run(chain.slug, nowIso, nowIso, at, stores.filter((s) => s.chainIndex === ci).length * 2);
    });
    db.run(
      `INSERT INTO import_runs (started_at, finished_at, origin, status, files, rows) VALUES (?, ?, 'cli', 'ok', ?, ?)`,
      [toIsraelIso(new Date(now.getTime() - 600_000)), nowIso, stores.length * 2, priceInsert.total + promoStoreInsert.total],
    );
    say("refreshing chain_products");
    chainProductRows = refreshChainProducts(db);
    bumpDataVersion(db, nowIso, "demo");
    const meta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    meta.run("bench_generator", `${GENERATOR_VERSION}:${schemaFingerprint()}:${scale}`);
  })();
  db.run("PRAGMA locking_mode = NORMAL");
  db.run("PRAGMA journal_mode = WAL");
  db.close();
  renameSync(building, file);
  return {
    chains: chains.length,
    stores: stores.length,
    products: P,
    priceRows: priceInsert.total,
    historyRows: historyInsert.total,
    promotions,
    promotionStoreRows: promoStoreInsert.total,
    chainProductRows,
    seconds: (performance.now() - started) / 1000,
  };
}

/** True when `file` holds a finished build of this generator, schema and scale. */
export function isCurrentBuild(file: string, scale: number): boolean {
  if (!existsSync(file)) return false;
  try {
    const db = new Database(file);
    const row = db.query("SELECT value FROM meta WHERE key = 'bench_generator'").get() as { value: string } | null;
    db.close();
    return row?.value === `${GENERATOR_VERSION}:${schemaFingerprint()}:${scale}`;
  } catch {
    return false;
  }
}

/** Popular barcodes (the most widely sold products), for benches. */
export function popularBarcodes(db: Database, count: number): string[] {
  return (db.query("SELECT barcode FROM products ORDER BY id LIMIT ?").all(count) as { barcode: string }[]).map((r) => r.barcode);
}

