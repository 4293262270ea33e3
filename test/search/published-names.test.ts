/**
 * Every published name (issue 42, part 6): a product is found by each name a chain publishes for
 * it while the served name stays, and loose produce grouped into a generic product answers once.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { openMemory } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { bumpDataVersion } from "../../src/data/data-state.ts";
import { loadRegistry } from "../../src/registry.ts";
import { ProductSearch } from "../../src/search/index.ts";

const AT = "2026-11-22T05:00:00+02:00";
const search = new ProductSearch({ cacheEntries: 0 });
const ids: Record<string, number> = {};

/** Products, the names two chains publish for them, and a generic product grouping three chains' tomatoes. */
function database(): Database {
  const { prices: db } = openMemory();
  const chains = [...syncRegistry(db, loadRegistry()).values()].slice(0, 3);
  const product = db.prepare("INSERT INTO products (scope_chain_id, barcode, barcode_key, name, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING id");
  const sold = db.prepare("INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode) VALUES (?, ?, ?, 3, 990, 990, 990)");
  const named = db.prepare("INSERT INTO product_names (product_id, chain_id, name) VALUES (?, ?, ?)");
  const add = (key: string, scope: number, barcode: string, name: string, chainIndexes: number[]) => {
    const { id } = product.get(scope, barcode, barcode, name, AT) as { id: number };
    ids[key] = id;
    for (const c of chainIndexes) sold.run(chains[c]!, barcode, id);
    return id;
  };
  db.transaction(() => {
    const cereal = add("cereal", 0, "7290000000011", "דגני דליפקאן תוספת אגוזי פקאן ושקדים 400 גר", [0, 1]);
    named.run(cereal, chains[0]!, "דגני דליפקאן תוספת אגוזי פקאן ושקדים 400 גר");
    named.run(cereal, chains[1]!, "דליפקאן 400 גרם");
    const magnum = add("magnum", 0, "7290000000028", "טילון מגנום לבן", [0, 1]);
    named.run(magnum, chains[1]!, "מגנום טילון לבן");
    add("other", 0, "7290000000035", "דגני בוקר קורנפלקס 750 גרם", [0]);
    const generic = add("tomatoes", -1, "g-tomatoes", "עגבניות", [0, 1, 2]);
    const members = [
      add("t0", chains[0]!, "1001", "עגבניה", [0]),
      add("t1", chains[1]!, "1002", "עגבניות במשקל", [1]),
      add("t2", chains[2]!, "1003", "עגבניה טרייה", [2]),
    ];
    for (const m of members) db.run("INSERT INTO generic_members (product_id, generic_id) VALUES (?, ?)", [m, generic]);
    bumpDataVersion(db, AT, "demo");
  })();
  return db;
}

beforeAll(async () => {
  await search.rebuild(database());
});

const find = (q: string) => search.search({ q, limit: 10, offset: 0 }).ids;

describe("every published name", () => {
  test("a chain's own name finds the product, first", () => {
    expect(find("דליפקאן 400 גרם")[0]).toBe(ids.cereal!);
    expect(find("מגנום טילון לבן")[0]).toBe(ids.magnum!);
  });

  test("loose produce answers once: the generic product, under its items' names; an item's barcode finds the item", () => {
    expect(find("עגבניות")).toEqual([ids.tomatoes!]);
    expect(find("עגבניה טרייה")).toEqual([ids.tomatoes!]);
    expect(find("עגבניה")).toEqual([ids.tomatoes!]);
    expect(find("1002")).toEqual([ids.t1!]);
  });
});
