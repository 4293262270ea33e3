import type { Database } from "bun:sqlite";
import { productKey } from "../../src/identity/product-id.ts";

/** Small SQL builders for hand-made price fixtures (tests compute expected answers by hand). */
export class Fixture {
  constructor(
    private readonly db: Database,
    private readonly chainIds: Map<string, number>,
  ) {}

  chainId(slug: string): number {
    const id = this.chainIds.get(slug);
    if (!id) throw new Error(`fixture: chain ${slug} not in registry`);
    return id;
  }

  store(slug: string, code: string, opts: { name?: string; city?: string; region?: string; pricesAt?: string } = {}): number {
    const row = this.db
      .query(
        `INSERT INTO stores (chain_id, chain_code, store_code, name, city, region, prices_at)
         VALUES (?, (SELECT code FROM chain_codes WHERE chain_id = ? LIMIT 1), ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(this.chainId(slug), this.chainId(slug), code, opts.name ?? `סניף ${code}`, opts.city ?? "תל אביב-יפו", opts.region ?? "tel-aviv", opts.pricesAt ?? "2026-11-22T05:00:00+02:00") as { id: number };
    return row.id;
  }

  product(barcode: string, name: string, opts: { manufacturer?: string; sizeAmount?: number; sizeUnit?: string; category?: string; scopeChain?: string } = {}): number {
    const row = this.db
      .query(
        `INSERT INTO products (scope_chain_id, barcode, barcode_key, name, manufacturer, size_amount, size_unit, category, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, '2026-11-22T05:00:00+02:00') RETURNING id`,
      )
      .get(
        opts.scopeChain ? this.chainId(opts.scopeChain) : 0,
        barcode,
        productKey(barcode),
        name,
        opts.manufacturer ?? null,
        opts.sizeAmount ?? null,
        opts.sizeUnit ?? null,
        opts.category ?? null,
      ) as { id: number };
    return row.id;
  }

  price(storeId: number, productId: number, agorot: number, updatedAt = "2026-11-20T08:00:00+02:00"): void {
    this.db.run(`INSERT INTO price_current (store_id, product_id, price, updated_at) VALUES (?, ?, ?, ?)`, [storeId, productId, agorot, updatedAt]);
  }

  history(storeId: number, productId: number, validFrom: string, agorot: number | null): void {
    this.db.run(`INSERT INTO price_history (product_id, store_id, valid_from, price) VALUES (?, ?, ?, ?)`, [productId, storeId, validFrom, agorot]);
  }

  promotion(
    slug: string,
    code: string,
    opts: {
      stores: number[];
      items: (number | { product: number; gift?: boolean })[];
      description?: string;
      startsAt?: string;
      endsAt?: string;
      minQty?: number;
      maxQty?: number;
      discountedPrice?: number;
      discountRate?: number;
      clubOnly?: boolean;
      coupon?: boolean;
      rewardType?: number;
    },
  ): number {
    const row = this.db
      .query(
        `INSERT INTO promotions (chain_id, chain_code, promotion_code, description, starts_at, ends_at, reward_type, min_qty, max_qty,
                                 discounted_price, discount_rate, is_club_only, is_coupon, identity)
         VALUES (?1, (SELECT code FROM chain_codes WHERE chain_id = ?2 LIMIT 1), ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, coalesce(?4, '') || char(31) || coalesce(?5, ''))
         RETURNING id`,
      )
      .get(
        this.chainId(slug),
        this.chainId(slug),
        code,
        opts.description ?? `מבצע ${code}`,
        opts.startsAt ?? "2026-11-01T00:00:00+02:00",
        opts.endsAt ?? "2026-12-31T23:59:00+02:00",
        opts.rewardType ?? 1,
        opts.minQty ?? null,
        opts.maxQty ?? null,
        opts.discountedPrice ?? null,
        opts.discountRate ?? null,
        opts.clubOnly ? 1 : 0,
        opts.coupon ? 1 : 0,
      ) as { id: number };
    // One item list per promotion, numbered as the promotion.
    this.db.run(`INSERT INTO promotion_lists (list_id, promotion_id, items_hash) VALUES (?, ?, 'fixture')`, [row.id, row.id]);
    for (const s of opts.stores) this.db.run(`INSERT INTO promotion_stores (promotion_id, store_id, list_id) VALUES (?, ?, ?)`, [row.id, s, row.id]);
    for (const item of opts.items) {
      const product = typeof item === "number" ? item : item.product;
      const gift = typeof item === "number" ? 0 : item.gift ? 1 : 0;
      this.db.run(
        `INSERT INTO promotion_items (promotion_id, list_id, product_id, is_gift, item_key) VALUES (?, ?, ?, ?, (SELECT barcode_key FROM products WHERE id = ?))`,
        [row.id, row.id, product, gift, product],
      );
    }
    return row.id;
  }
}
