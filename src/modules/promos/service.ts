import type { AppDeps } from "../../app.ts";
import { stmt } from "../../db/statements.ts";
import { decodeCursor, encodeCursor } from "../../http/cursor.ts";
import { formatIls, toIsraelIso } from "../../time.ts";
import { publicPromotionId } from "../prices/queries.ts";
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
export function promotionsFeed(deps: AppDeps, options: FeedOptions) {
  if (options.chain_id !== undefined) requireChain(deps, options.chain_id, "chain_id");
  const version = deps.data.current.version;
  const queryKey = JSON.stringify(["feed", options.chain_id ?? "", options.barcode ?? "", options.store_id ?? "", options.include_club, options.limit]);
  const after = options.cursor ? decodeCursor(options.cursor, version, queryKey, isPosition) : null;
  const active = activeAt(deps.now());
  const where = [...active.sql];
  const args: (string | number)[] = [...active.args];
  if (options.chain_id) {
    where.push("c.slug = ?");
    args.push(options.chain_id);
  }
  if (options.include_club === "false") where.push("pr.is_club_only = 0");
  if (options.barcode) {
    where.push("EXISTS (SELECT 1 FROM promotion_items pi JOIN products p ON p.id = pi.product_id WHERE pi.promotion_id = pr.id AND p.barcode_key = ?)");
    args.push(options.barcode.replace(/^0+(?=\d)/, ""));
  }
  if (options.store_id) {
    where.push("EXISTS (SELECT 1 FROM promotion_stores ps JOIN stores s ON s.id = ps.store_id WHERE ps.promotion_id = pr.id AND s.store_code = ?)");
    args.push(options.store_id.replace(/^0+(?=\d)/, ""));
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
  // Counted for the page only (in the SELECT they were counted for every active promotion before sorting).
  const storeCount = stmt(deps.db.prices, "SELECT count(*) AS n FROM promotion_stores WHERE promotion_id = ?");
  const itemCount = stmt(deps.db.prices, "SELECT count(*) AS n FROM promotion_items WHERE promotion_id = ?");
  const itemsOf = stmt(
    deps.db.prices,
    `SELECT p.barcode, p.name, pi.is_gift FROM promotion_items pi JOIN products p ON p.id = pi.product_id
      WHERE pi.promotion_id = ? ORDER BY pi.is_gift, p.barcode LIMIT 50`,
  );
  const last = page[page.length - 1];
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
      store_count: (storeCount.get(r.id) as { n: number }).n,
      item_count: (itemCount.get(r.id) as { n: number }).n,
      items: (itemsOf.all(r.id) as { barcode: string; name: string; is_gift: number }[]).map((i) => ({ barcode: i.barcode, name: i.name, is_gift: i.is_gift === 1 })),
    })),
    nextCursor: rows.length > options.limit && last ? encodeCursor<Position>(version, queryKey, [last.starts_at ?? "", last.id]) : null,
  };
}
