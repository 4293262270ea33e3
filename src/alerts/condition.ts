/**
 * An alert's condition, as stored and as the API shows it: a price in agorot to go below, a
 * percentage drop against the previous effective price, or a promotion starting.
 */
export type Condition = { below: number } | { dropPct: number } | { promotion: true };

export type ConditionJson = { below_ils: string } | { drop_pct: number } | { promotion: true };

export function conditionJson(c: Condition): ConditionJson {
  if ("below" in c) return { below_ils: (c.below / 100).toFixed(2) };
  if ("dropPct" in c) return { drop_pct: c.dropPct };
  return { promotion: true };
}

/** From the stored/API form (already validated). */
export function conditionOf(json: ConditionJson): Condition {
  if ("below_ils" in json) return { below: Math.round(Number(json.below_ils) * 100) };
  if ("drop_pct" in json) return { dropPct: json.drop_pct };
  return { promotion: true };
}
