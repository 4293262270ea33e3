import type { PromotionRecord } from "../records.ts";

/**
 * What the files say a promotion is, beside its chain and id: its description and start as
 * published. Chains reuse promotion ids — Osher Ad's one id names different promotions at
 * different stores and in different years — so a promotion row is (chain, id, identity), and a
 * file's item and store lists only ever join the promotion that file describes. The end date,
 * amounts and flags are not part of it: a chain extending a running promotion updates it.
 * Migration 7 (src/db/price-schema.ts) computes the same string in SQL.
 *
 * @example promotionIdentity({ description: "2 ב-10", startsAt: "2026-11-01T00:00:00+02:00" }) // "2 ב-10\u001f2026-11-01T00:00:00+02:00"
 */
export function promotionIdentity(promo: Pick<PromotionRecord, "description" | "startsAt">): string {
  return `${promo.description ?? ""}\u001f${promo.startsAt ?? ""}`;
}
