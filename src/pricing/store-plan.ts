/**
 * The cheapest split of a shopping list over at most `maxStores` stores (POST /api/v1/basket/plan/),
 * as a pure search over a cost matrix: `costs[s][i]` is store s's line total of item i (agorot),
 * Infinity where it does not sell it. A set of stores buys each item at the cheapest of them; the
 * plan is the set covering most items, then with the lowest total (on a tie, the first found:
 * cheaper single stores first; stores that would buy nothing are dropped).
 *
 * Exact: stores another store beats or equals on every item are dropped first (a plan holding one
 * can swap it for the other at no cost); then every set of 1, 2, …, maxStores of the rest is
 * scored in order, a pair's extensions skipped when even the cheapest price of each item among the
 * later stores cannot beat the best plan found (branch and bound). The search stops after
 * WORK_BUDGET item evaluations (pathological inputs only: hundreds of stores none of which beats
 * another); the plan is then the best found so far, flagged `exact: false`, and its total is at
 * most `total − lowerBound` above the optimum, `lowerBound` being every covered item at its
 * cheapest store in range (no store limit).
 */

/** A missing item weighs more than any possible total: covering items always comes first. */
const UNCOVERED = 2 ** 40;
/** Item evaluations before the search stops (≈ 10 ms on one core). */
export const WORK_BUDGET = 4_000_000;

export interface StorePlan {
  /** Indexes into `costs` of the stores used, each buying at least one item. */
  stores: number[];
  /** Per item: the index of the store buying it, or -1 (sold by none of the stores). */
  assignment: number[];
  total: number;
  covered: number;
  exact: boolean;
  /** Sum over the covered items of their cheapest price among all stores. */
  lowerBound: number;
}

function score(costs: Float64Array[], set: number[], n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    let best = UNCOVERED;
    for (const s of set) if (costs[s]![i]! < best) best = costs[s]![i]!;
    sum += best;
  }
  return sum;
}

/** Index of the stores no other store beats or equals on every item (the first of equal ones kept). */
function undominated(costs: Float64Array[], order: number[], n: number): number[] {
  const kept: number[] = [];
  const position = new Map(order.map((s, i) => [s, i]));
  for (const s of order) {
    let dominated = false;
    for (const t of order) {
      if (t === s) continue;
      let le = true;
      let strictly = false;
      for (let i = 0; i < n && le; i++) {
        if (costs[t]![i]! > costs[s]![i]!) le = false;
        else if (costs[t]![i]! < costs[s]![i]!) strictly = true;
      }
      // Equal vectors: the earlier one in `order` stays.
      if (le && (strictly || position.get(t)! < position.get(s)!)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) kept.push(s);
  }
  return kept;
}

/**
 * The plan over `costs` (one row per store, one column per item) with at most `maxStores` stores.
 * `order` breaks ties: earlier stores are preferred (callers pass the nearest first).
 * @example planStores([Float64Array.of(100, Infinity), Float64Array.of(Infinity, 50)], 2).total // 150
 */
export function planStores(costs: Float64Array[], maxStores: number, n: number): StorePlan {
  const all = costs.map((_, s) => s);
  const single = all.map((s) => score(costs, [s], n));
  // Cheapest single stores first: good plans are found early and bound the rest.
  const order = all.sort((a, b) => single[a]! - single[b]! || a - b);
  const cand = undominated(costs, order, n);
  const m = cand.length;
  // suffixMin[j][i]: the cheapest price of item i among cand[j…].
  const suffixMin: Float64Array[] = Array.from({ length: m + 1 }, () => new Float64Array(n).fill(UNCOVERED));
  for (let j = m - 1; j >= 0; j--) for (let i = 0; i < n; i++) suffixMin[j]![i] = Math.min(suffixMin[j + 1]![i]!, costs[cand[j]!]![i]!);

  let best: number[] = [];
  let bestScore = Infinity;
  let work = 0;
  let exact = true;
  const consider = (set: number[], value: number) => {
    if (value < bestScore) {
      bestScore = value;
      best = set;
    }
  };
  for (const a of cand) consider([a], single[a]!);
  const pair = new Float64Array(n);
  search: for (let x = 0; x < m && maxStores >= 2; x++) {
    for (let y = x + 1; y < m; y++) {
      if (work > WORK_BUDGET) {
        exact = false;
        break search;
      }
      const a = cand[x]!;
      const b = cand[y]!;
      let value = 0;
      let bound = 0;
      for (let i = 0; i < n; i++) {
        const v = Math.min(costs[a]![i]!, costs[b]![i]!, UNCOVERED);
        pair[i] = v;
        value += v;
        bound += Math.min(v, suffixMin[y + 1]![i]!);
      }
      work += n;
      consider([a, b], value);
      if (maxStores < 3 || bound >= bestScore) continue;
      for (let z = y + 1; z < m; z++) {
        const c = costs[cand[z]!]!;
        let sum = 0;
        for (let i = 0; i < n && sum < bestScore; i++) sum += c[i]! < pair[i]! ? c[i]! : pair[i]!;
        work += n;
        if (sum < bestScore) consider([a, b, cand[z]!], sum);
      }
    }
  }
  // Each item to the cheapest store of the set (the earlier store of the set on a tie).
  const assignment: number[] = [];
  let total = 0;
  let covered = 0;
  let lowerBound = 0;
  for (let i = 0; i < n; i++) {
    let at = -1;
    for (const s of best) if (costs[s]![i]! !== Infinity && (at < 0 || costs[s]![i]! < costs[at]![i]!)) at = s;
    assignment.push(at);
    if (at >= 0) {
      total += costs[at]![i]!;
      covered++;
      lowerBound += suffixMin[0]![i]!;
    }
  }
  return { stores: best.filter((s) => assignment.includes(s)), assignment, total, covered, exact, lowerBound };
}
