/**
 * Full names: the name a product is served under is chosen from the names the chains publish
 * for it (one vote per chain: its newest published name).
 *
 * 1. Never a name that is a cut-off prefix of another published name (two chains cutting
 *    "שוקולד פרה עלית חלב 4*100 גרם" to 20 characters do not make it "שוקולד פרה עלית חלב").
 * 2. Then the name most chains publish.
 * 3. Then the longer; then the first in code-point order — the choice is deterministic.
 * Names are compared with runs of white space collapsed and the ends trimmed. Manufacturers are
 * chosen by the same rule.
 *
 * Which chains vote (servedName): those that sell the product now, when any does — a product's
 * name changes, and the chains that sell it know its name today. But when they all cut it, the
 * whole name another chain published still wins (rule 1 over every chain), unless that name is no
 * longer current: its chain no longer sells the product and last published the name more than
 * CURRENT_NAME_MS (24 months, the history the API serves) before the newest name of the product —
 * then it is taken for an older name of the product ("… 80 גרם" before a pack changed), and the
 * sellers' name stands.
 */

/** How long after a chain last published a name, measured from the product's newest name, the name still lengthens a cut one. */
export const CURRENT_NAME_MS = 730 * 24 * 3600 * 1000;

/** One chain's newest name and manufacturer for a product (a product_names row). */
export interface PublishedName {
  name: string | null;
  manufacturer: string | null;
  /** The chain sells the product now (has it in chain_products). */
  sold: boolean;
  /** When the chain last published the name (unix ms); null when not known (taken as current). */
  publishedAt: number | null;
}

/**
 * The served name and manufacturer among the chains' names (see the rules above).
 * @example servedName([{ name: "קליק ביסקוויט", manufacturer: null, sold: true, publishedAt: t }, { name: "קליק ביסקוויט 75 גרם", manufacturer: null, sold: false, publishedAt: t }])
 * // → { name: "קליק ביסקוויט 75 גרם", manufacturer: null }
 */
export function servedName(published: readonly PublishedName[]): { name: string | null; manufacturer: string | null } {
  const sellers = published.filter((p) => p.sold);
  const voters = sellers.length > 0 ? sellers : published;
  const newest = Math.max(0, ...published.map((p) => p.publishedAt ?? 0));
  const current = published.filter((p) => p.sold || p.publishedAt === null || p.publishedAt >= newest - CURRENT_NAME_MS);
  const whole = (chosen: string | null, others: (string | null)[]) => {
    if (chosen === null) return null;
    const longer = others.filter((o): o is string => o !== null && tidyName(o).length > chosen.length && tidyName(o).startsWith(chosen));
    return longer.length > 0 ? bestName(longer) : chosen;
  };
  return {
    name: whole(bestName(voters.map((p) => p.name)), current.map((p) => p.name)),
    manufacturer: whole(bestName(voters.map((p) => p.manufacturer)), current.map((p) => p.manufacturer)),
  };
}

/** White space collapsed, ends trimmed: `"חלב  3% "` → `"חלב 3%"`. */
export function tidyName(name: string): string {
  return name.replace(/\s+/g, " ").trim();
}

/**
 * The served name among the published ones (see the rules above); null when none is given.
 * @example bestName(["שוקולד פרה עלית חלב", "שוקולד פרה עלית חלב 4*100 גרם", "שוקולד פרה עלית חלב"]) // "שוקולד פרה עלית חלב 4*100 גרם"
 * @example bestName(["במבה 80 גרם", "במבה 80 ג", "במבה 80 גרם"]) // "במבה 80 גרם" (most common; "במבה 80 ג" is also a cut-off prefix)
 */
export function bestName(published: readonly (string | null)[]): string | null {
  const votes = new Map<string, number>();
  for (const raw of published) {
    if (raw === null) continue;
    const name = tidyName(raw);
    if (name !== "") votes.set(name, (votes.get(name) ?? 0) + 1);
  }
  if (votes.size === 0) return null;
  const names = [...votes.keys()];
  const whole = names.filter((n) => !names.some((other) => other.length > n.length && other.startsWith(n)));
  whole.sort((a, b) => votes.get(b)! - votes.get(a)! || b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  return whole[0]!;
}
