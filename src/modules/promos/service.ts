import { withoutLeadingZeros } from "../../identity/product-key.ts";
import type { DataSet } from "../../deps.ts";
import { stmt } from "../../db/statements.ts";
import { cursorScope, decodeCursor, encodeCursor } from "../../http/encoding/cursor.ts";
import { formatIls, toIsraelIso } from "../../lib/time.ts";
import { publicPromotionId } from "../../pricing/queries.ts";
import { requireChain } from "../chains/service.ts";

export interface FeedOptions {
  limit: number;
  cursor?: string;
  chain_id?: string;
  barcode?: string;
  store_id?: string;
  include_club: "true" | "false";
}

interface PromotionRow {
  id: number;
  promotion_code: string;
  chain_slug: string;
  chain_name: string;
  description: string | null;
  starts_at: string | null;
  ends_at: string | null;
  is_club_only: number;
  is_coupon: number;
  reward_type: number | null;
  min_qty: number | null;
  max_qty: number | null;
  discounted_price: number | null;
  discount_rate: number | null;
}

/** Keyset position: (starts_at, id) of the last item, newest first. */
type Position = [string, number];
const isPosition = (k: unknown): k is Position => Array.isArray(k) && typeof k[0] === "string" && Number.isInteger(k[1]);

const HOUR_MS = 3600_000;

/**
 * SQL conditions for "active at `now`" (start ≤ now < end; open ends allowed), exact across
 * DST switches. Stored times are Israel-local ISO text with their own offset, so text order is
 * instant order only when the offsets agree: the wall clock of a time and of its instant differ
 * by 2 h in winter, 3 h in summer. Times more than 3 h of wall clock away from now are decided
 * by the text (index-friendly, no parsing); the few nearer ones by their instants (julianday
 * reads the offset).
 */
function activeAt(now: Date): { sql: string[]; args: string[] } {
  const iso = toIsraelIso(now);
  const lo = toIsraelIso(new Date(now.getTime() - 3 * HOUR_MS)).slice(0, 19);
  const hi = toIsraelIso(new Date(now.getTime() + 3 * HOUR_MS)).slice(0, 19);
  return {
    sql: [
      "(pr.starts_at IS NULL OR pr.starts_at <= ? OR (pr.starts_at <= ? AND julianday(pr.starts_at) <= julianday(?)))",
      "(pr.ends_at IS NULL OR pr.ends_at > ? OR (pr.ends_at > ? AND julianday(pr.ends_at) > julianday(?)))",
    ],
    args: [lo, hi, iso, hi, lo, iso],
  };
}

/**
 * GET /api/v1/promos/feed/: active promotions (now between start and end, exact to the second
 * also across DST switches), newest start first. An unknown `chain_id` is 404 chain_not_found.
 */
export function promotionsFeed(deps: DataSet, options: FeedOptions) {
  if (options.chain_id !== undefined) requireChain(deps, options.chain_id, "chain_id");
  const scope = cursorScope(deps.data);
  const queryKey = JSON.stringify(["feed", options.chain_id ?? "", options.barcode ?? "", options.store_id ?? "", options.include_club, options.limit]);
  const after = options.cursor ? decodeCursor(options.cursor, scope, queryKey, isPosition) : null;
  const active = activeAt(deps.now());
  const where = [...active.sql];
  const args: (string | number)[] = [...active.args];
  if (options.chain_id) {
    where.push("c.slug = ?");
    args.push(options.chain_id);
  }
  if (options.include_club === "false") where.push("pr.is_club_only = 0");
  const barcode = options.barcode === undefined ? null : withoutLeadingZeros(options.barcode);
  const storeCode = options.store_id?.replace(/^0+(?=\d)/, "") ?? null;
  // A store has the promotion for a product only when its own item list names it. The product's
  // promotions are a set read once (from its few item rows), not a test per active promotion:
  // at national size that test was ~100–250 ms a request.
  if (barcode !== null && storeCode !== null) {
    where.push(
      `pr.id IN (SELECT ps.promotion_id FROM products p JOIN promotion_items pi ON pi.product_id = p.id JOIN promotion_stores ps ON ps.list_id = pi.list_id
                  JOIN stores s ON s.id = ps.store_id WHERE p.barcode_key = ? AND s.store_code = ?)`,
    );
    args.push(barcode, storeCode);
  } else if (barcode !== null) {
    where.push(
      `pr.id IN (SELECT pi.promotion_id FROM products p JOIN promotion_items pi ON pi.product_id = p.id JOIN promotion_stores ps ON ps.list_id = pi.list_id
                  WHERE p.barcode_key = ?)`,
    );
    args.push(barcode);
  } else if (storeCode !== null) {
    where.push("EXISTS (SELECT 1 FROM promotion_stores ps JOIN stores s ON s.id = ps.store_id WHERE ps.promotion_id = pr.id AND s.store_code = ?)");
    args.push(storeCode);
  }
  if (after) {
    where.push("(coalesce(pr.starts_at, '') < ? OR (coalesce(pr.starts_at, '') = ? AND pr.id < ?))");
    args.push(after[0], after[0], after[1]);
  }
  args.push(options.limit + 1);
  const rows = deps.db.prices
    .query(
      `SELECT pr.id, pr.promotion_code, c.slug AS chain_slug, c.name AS chain_name, pr.description, pr.starts_at, pr.ends_at,
              pr.is_club_only, pr.is_coupon, pr.reward_type, pr.min_qty, pr.max_qty, pr.discounted_price, pr.discount_rate
         FROM promotions pr JOIN chains c ON c.id = pr.chain_id
        WHERE ${where.join(" AND ")}
        ORDER BY coalesce(pr.starts_at, '') DESC, pr.id DESC
        LIMIT ?`,
    )
    .all(...args) as PromotionRow[];
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  const lists = pageLists(deps, page.map((r) => r.id), storeCode, barcode);
  return {
    items: page.map((r) => ({
      promotion_id: publicPromotionId(r.chain_slug, r.promotion_code),
      chain_id: r.chain_slug,
      chain_name: r.chain_name,
      description: r.description,
      starts_at: r.starts_at,
      ends_at: r.ends_at,
      is_club_only: r.is_club_only === 1,
      is_coupon: r.is_coupon === 1,
      reward_type: r.reward_type,
      min_qty: r.min_qty,
      max_qty: r.max_qty,
      discounted_price_ils: r.discounted_price === null ? null : formatIls(r.discounted_price),
      discount_rate: r.discount_rate,
      ...lists(r.id),
    })),
    nextCursor: rows.length > options.limit && last ? encodeCursor<Position>(scope, queryKey, [last.starts_at ?? "", last.id]) : null,
  };
}

interface ListItem {
  barcode: string;
  name: string | null;
  is_gift: number;
}

/**
 * Store count and items of each promotion of a page, counted for the page only. Stores of one
 * chain may list different items under one promotion (an item list per store, see
 * ingest/load/promos.ts): with a store filter the items are that store's list; otherwise every
 * item any of its stores lists. With a barcode, the stores counted are those whose list names
 * the product. Items no price file has published yet are listed by their code, without a name.
 */
function pageLists(deps: DataSet, ids: number[], storeCode: string | null, barcode: string | null) {
  const db = deps.db.prices;
  const storeCount =
    barcode === null
      ? stmt(db, "SELECT count(*) AS n FROM promotion_stores WHERE promotion_id = ?")
      : stmt(
          db,
          `SELECT count(*) AS n FROM promotion_stores WHERE promotion_id = ?1 AND list_id IN
             (SELECT pi.list_id FROM products p JOIN promotion_items pi ON pi.product_id = p.id WHERE p.barcode_key = ?2 AND pi.promotion_id = ?1)`,
        );
  const listsOf =
    storeCode === null
      ? stmt(db, "SELECT DISTINCT list_id FROM promotion_stores WHERE promotion_id = ?")
      : stmt(db, "SELECT DISTINCT ps.list_id FROM promotion_stores ps JOIN stores s ON s.id = ps.store_id WHERE ps.promotion_id = ? AND s.store_code = ?");
  const itemsSql = (select: string, tail: string) =>
    `SELECT ${select} FROM (SELECT pi.item_key, pi.is_gift, max(p.barcode) AS barcode, max(p.name) AS name
                              FROM promotion_items pi LEFT JOIN products p ON p.id = pi.product_id
                             WHERE pi.list_id IN (SELECT value FROM json_each(?)) GROUP BY pi.item_key, pi.is_gift) ${tail}`;
  const itemCount = stmt(db, itemsSql("count(*) AS n", ""));
  const itemsOf = stmt(db, itemsSql("coalesce(barcode, item_key) AS barcode, name, is_gift", "ORDER BY is_gift, coalesce(barcode, item_key) LIMIT 50"));
  const out = new Map<number, { store_count: number; item_count: number; items: { barcode: string; name: string | null; is_gift: boolean }[] }>();
  for (const id of ids) {
    const lists = JSON.stringify((storeCode === null ? listsOf.values(id) : listsOf.values(id, storeCode)).map((r) => r[0]));
    out.set(id, {
      store_count: ((barcode === null ? storeCount.get(id) : storeCount.get(id, barcode)) as { n: number }).n,
      item_count: (itemCount.get(lists) as { n: number }).n,
      items: (itemsOf.all(lists) as ListItem[]).map((i) => ({ barcode: i.barcode, name: i.name, is_gift: i.is_gift === 1 })),
    });
  }
  return (id: number) => out.get(id)!;
}
