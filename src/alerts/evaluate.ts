import type { Condition } from "./condition.ts";
import type { ChainPrice } from "./price-view.ts";

/**
 * An alert's evaluation state at one data version: its chains' figures and the lowest effective
 * price among them (agorot), and whether the condition held.
 */
export interface AlertState {
  best: number | null;
  chains: Record<string, { effective: number; shelf: number }>;
  met: boolean;
}

/** Why an alert fires: the chains concerned and the alert's old and new lowest effective price. */
export interface Trigger {
  chains: (ChainPrice & { oldEffective: number | null })[];
  oldBest: number | null;
  newBest: number | null;
}

function lowest(chains: ChainPrice[]): number | null {
  return chains.length === 0 ? null : Math.min(...chains.map((c) => c.effective));
}

/**
 * Evaluates a condition on the alert's chains at a new data version against its previous state.
 * An event fires only when the condition *became* true at this version:
 * - below: the lowest effective price is under the amount now and was not at the previous version;
 *   the chains named are those under it.
 * - drop_pct: the lowest effective price fell by at least the percentage since the previous data
 *   version (each such fall is its own event; a price that stays down is not a new fall); the
 *   chains named are those at the new lowest price.
 * - promotion: a chain's effective price is under its shelf price (a promotion open to all that
 *   lowers one unit's price) and was not at the previous version; the chains named are those
 *   whose promotion started.
 * `previous` null (first evaluation, at subscription) records the state and never fires.
 *
 * @example evaluate({ below: 990 }, { best: 1290, chains: {}, met: false }, [{ …effective: 950 }]) // fires
 */
export function evaluate(condition: Condition, previous: AlertState | null, chains: ChainPrice[]): { state: AlertState; trigger: Trigger | null } {
  const best = lowest(chains);
  const figures: AlertState["chains"] = {};
  for (const c of chains) figures[c.chainId] = { effective: c.effective, shelf: c.shelf };
  const old = (c: ChainPrice) => ({ ...c, oldEffective: previous?.chains[c.chainId]?.effective ?? null });
  const oldBest = previous?.best ?? null;

  let met = false;
  let concerned: ChainPrice[] = [];
  if ("below" in condition) {
    met = best !== null && best < condition.below;
    concerned = chains.filter((c) => c.effective < condition.below);
    if (previous?.met) concerned = [];
  } else if ("dropPct" in condition) {
    met = best !== null && oldBest !== null && best * 100 <= oldBest * (100 - condition.dropPct);
    concerned = chains.filter((c) => c.effective === best);
  } else {
    const promoted = chains.filter((c) => c.effective < c.shelf);
    met = promoted.length > 0;
    concerned = promoted.filter((c) => {
      const before = previous?.chains[c.chainId];
      return !before || !(before.effective < before.shelf);
    });
  }
  const state: AlertState = { best, chains: figures, met };
  const fires = previous !== null && met && concerned.length > 0 && ("dropPct" in condition || "promotion" in condition || !previous.met);
  return { state, trigger: fires ? { chains: concerned.map(old), oldBest, newBest: best } : null };
}
