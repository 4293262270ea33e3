import type { Database } from "bun:sqlite";
import type { ProduceGroups, SoldBy } from "../../identity/produce-groups.ts";
import { GENERIC_SCOPE } from "../../identity/resolve.ts";

/** Fewer chains than this selling a group's items: no generic product (nothing to compare). */
const MIN_CHAINS = 2;

const META_KEY = "produce_groups_version";

/**
 * Generic products (src/identity/produce-groups.ts): loose produce that chains sell under their
 * own codes, grouped across chains. Each is a row of `products` (scope -1, barcode = its `g-…`
 * id) whose `price_current` rows are derived from its members' — per store, the lowest price of
 * the group's items sold there (per kilogram, or per unit) — so every reader of products
 * (prices, basket, search, widget, chain_products) treats it as a product. `generic_members`
 * lists each member; history is folded from the members' rows when asked (history.ts).
 *
 * Run in the import's transaction after names are chosen: membership follows the served names.
 * Only groups whose membership changed, or one of whose members' prices the run touched, are
 * rewritten (`touched` null: every group, as when the table itself changed). Returns the
 * generic products whose chain_products rows must be refreshed.
 *
 * @example rebuildGenericProducts(db, PRODUCE_GROUPS, prices.touched, "2026-11-22T05:00:00+02:00") // → [812, 813]
 */
export function rebuildGenericProducts(db: Database, groups: ProduceGroups, touched: { has(id: number): boolean } | null, now: string): number[] {
  const stored = (db.query("SELECT value FROM meta WHERE key = ?").get(META_KEY) as { value: string } | null)?.value ?? null;
  const all = touched === null || stored !== groups.version;

  // Items that can be grouped: chain-internal codes, and GTIN items sold by weight.
  const candidates = db
    .query(
      `SELECT p.id, p.scope_chain_id, p.name, p.is_weighted FROM products p
        WHERE (p.scope_chain_id > 0 OR (p.scope_chain_id = 0 AND p.is_weighted = 1))
          AND EXISTS (SELECT 1 FROM chain_products cp WHERE cp.product_id = p.id)`,
    )
    .values() as [number, number, string, number][];
  const wanted = new Map<string, number[]>();
  for (const [id, scope, name, weighted] of candidates) {
    const soldBy: SoldBy | null = weighted === 1 ? "kg" : scope > 0 ? "unit" : null;
    const group = groups.match(name, soldBy);
    if (!group) continue;
    const list = wanted.get(group.id);
    if (list) list.push(id);
    else wanted.set(group.id, [id]);
  }

  const existing = new Map<string, { id: number; members: number[] }>();
  for (const [id, key] of db.query(`SELECT id, barcode_key FROM products WHERE scope_chain_id = ${GENERIC_SCOPE}`).values() as [number, string][]) {
    existing.set(key, { id, members: [] });
  }
  const byGenericId = new Map([...existing.values()].map((e) => [e.id, e]));
  for (const [member, generic] of db.query("SELECT product_id, generic_id FROM generic_members ORDER BY product_id").values() as [number, number][]) {
    byGenericId.get(generic)?.members.push(member);
  }

  const chainsOf = db.prepare("SELECT count(DISTINCT chain_id) AS n FROM chain_products WHERE product_id IN (SELECT value FROM json_each(?))");
  const insertProduct = db.prepare(
    `INSERT INTO products (scope_chain_id, barcode, barcode_key, name, unit_qty, size_amount, size_unit, is_weighted, category, updated_at)
     VALUES (${GENERIC_SCOPE}, ?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id`,
  );
  const updateProduct = db.prepare("UPDATE products SET name = ?, unit_qty = ?, size_amount = ?, size_unit = ?, is_weighted = ?, category = ? WHERE id = ?");
  const dropPrices = db.prepare("DELETE FROM price_current WHERE product_id = ?");
  const derivePrices = db.prepare(
    `INSERT INTO price_current (store_id, product_id, price, updated_at, allow_discount)
     SELECT store_id, ?1, min(price), max(updated_at), min(allow_discount) FROM price_current
      WHERE product_id IN (SELECT value FROM json_each(?2)) GROUP BY store_id`,
  );
  const dropMembers = db.prepare("DELETE FROM generic_members WHERE generic_id = ?");
  const addMember = db.prepare("INSERT INTO generic_members (product_id, generic_id) VALUES (?, ?)");
  const dropProduct = db.prepare("DELETE FROM products WHERE id = ?");

  const refresh: number[] = [];
  for (const group of groups.groups) {
    const members = (wanted.get(group.id) ?? []).sort((a, b) => a - b);
    const held = existing.get(group.id);
    const chains = members.length === 0 ? 0 : (chainsOf.get(JSON.stringify(members)) as { n: number }).n;
    if (chains < MIN_CHAINS) {
      if (held) {
        dropPrices.run(held.id);
        dropMembers.run(held.id);
        dropProduct.run(held.id);
        refresh.push(held.id);
      }
      continue;
    }
    const kg = group.soldBy === "kg";
    const fields = [group.name, kg ? "קילוגרם" : "יחידה", kg ? 1000 : 1, kg ? "g" : "unit", kg ? 1 : 0, group.category] as const;
    let id: number;
    let changed = all;
    if (held) {
      id = held.id;
      updateProduct.run(...fields, id);
      if (held.members.length !== members.length || held.members.some((m, i) => m !== members[i])) changed = true;
    } else {
      id = (insertProduct.get(group.id, fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], now) as { id: number }).id;
      changed = true;
    }
    if (!changed && touched && !members.some((m) => touched.has(m))) continue;
    dropMembers.run(id);
    for (const m of members) addMember.run(m, id);
    dropPrices.run(id);
    derivePrices.run(id, JSON.stringify(members));
    refresh.push(id);
  }
  // Generic products of groups the table no longer has.
  const known = new Set(groups.groups.map((g) => g.id));
  for (const [key, held] of existing) {
    if (known.has(key)) continue;
    dropPrices.run(held.id);
    dropMembers.run(held.id);
    dropProduct.run(held.id);
    refresh.push(held.id);
  }
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(META_KEY, groups.version);
  return refresh;
}
