import type { Database } from "bun:sqlite";
import { classify } from "./categories.ts";

/**
 * Fills `products.category` where it is NULL with the keyword classifier: one UPDATE per
 * category. Meant for the import, inside its transaction (a writer); the search index never
 * writes and classifies NULL rows in memory instead. Returns the rows updated.
 *
 * @example db.transaction(() => fillMissingCategories(db))() // → 1532
 */
export function fillMissingCategories(db: Database): number {
  const rows = db.query("SELECT id, name, manufacturer FROM products WHERE category IS NULL").all() as {
    id: number;
    name: string;
    manufacturer: string | null;
  }[];
  const bySlug = new Map<string, number[]>();
  for (const row of rows) {
    const slug = classify(row.name, row.manufacturer);
    const ids = bySlug.get(slug) ?? [];
    ids.push(row.id);
    bySlug.set(slug, ids);
  }
  const update = db.prepare("UPDATE products SET category = ? WHERE category IS NULL AND id IN (SELECT value FROM json_each(?))");
  let changed = 0;
  for (const [slug, ids] of bySlug) changed += update.run(slug, JSON.stringify(ids)).changes;
  return changed;
}
