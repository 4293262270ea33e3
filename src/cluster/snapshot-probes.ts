import type { Database } from "bun:sqlite";
import { loadSettings } from "../config.ts";
import { DataState } from "../data/data-state.ts";
import { ColdBudget } from "../serving/cold-budget.ts";
import { LoadMeter } from "../serving/load-meter.ts";
import { Revalidator } from "../serving/revalidator.ts";
import { listChains } from "../modules/chains/service.ts";
import { chainCatalog } from "../modules/catalog/service.ts";
import { priceHistory } from "../modules/prices/history.ts";
import { productPrices } from "../modules/prices/service.ts";
import { loadRegistry } from "../registry.ts";
import { ProductSearch } from "../search/index.ts";
import { createDataSet } from "../services.ts";

/** How long a snapshot's probe queries may take together before it is refused. */
export const PROBE_BUDGET_MS = 10_000;

/**
 * Answers, on a snapshot, what the API answers most: the chains list, a product's prices by chain
 * and by store, its price history, and a page of a chain's catalog — through the API's own
 * service functions on a data set of the snapshot, so a table or column the API reads that is
 * missing, or a read that fails, throws here rather than as a 500 after the switch. Run in the
 * snapshot check's worker (snapshot-check-worker.ts), within PROBE_BUDGET_MS.
 *
 * @example probeSnapshot(openSnapshot(path)) // → ["chains", "prices 7290000000001", …]
 */
export function probeSnapshot(db: Database): string[] {
  const coldBudget = new ColdBudget();
  const source = new DataState(db);
  const data = createDataSet(
    { settings: loadSettings({}), registry: loadRegistry(), now: () => new Date(), source, search: new ProductSearch() },
    { coldBudget, revalidator: new Revalidator(coldBudget), loadMeter: new LoadMeter() },
  );
  const asked = ["chains"];
  const chains = listChains(data);
  const product = db.query("SELECT p.barcode, c.slug FROM chain_products cp JOIN products p ON p.id = cp.product_id JOIN chains c ON c.id = cp.chain_id WHERE p.scope_chain_id = 0 LIMIT 1").get() as
    | { barcode: string; slug: string }
    | null;
  if (chains.some((c) => c.store_count > 0) && !product) throw new Error("probe: chains have stores but no chain sells a product");
  if (product) {
    productPrices(data, product.barcode, "chain", {});
    productPrices(data, product.barcode, "store", {});
    priceHistory(data, product.barcode, 12);
    chainCatalog(data, product.slug, { limit: 20 });
    asked.push(`prices, history ${product.barcode}`, `catalog ${product.slug}`);
  }
  return asked;
}
