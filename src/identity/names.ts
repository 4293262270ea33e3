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
 */

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
