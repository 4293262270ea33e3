import type { Database } from "bun:sqlite";
import type { Classifier } from "./products.ts";

const META_KEY = "categories_version";

/**
 * Products keep the category given when they were written; when the keyword table has changed
 * since (an upgrade), every product is classified again — inside the import's transaction, so the
 * new categories switch with the data. Returns how many products changed category.
 *
 * @example reclassifyIfTableChanged(db, classify, CATEGORIES_VERSION) // → 0 when the table is the same
 */
export function reclassifyIfTableChanged(db: Database, classify: Classifier, version: string, options: { allNew?: boolean } = {}): number {
  const stored = (db.query("SELECT value FROM meta WHERE key = ?").get(META_KEY) as { value: string } | null)?.value ?? null;
  if (stored === version) return 0;
  let changed = 0;
  // allNew: every product was written by this run with this very classifier; only the stamp is missing.
  if (!options.allNew) changed = classifyAll(db, classify);
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(META_KEY, version);
  return changed;
}

function classifyAll(db: Database, classify: Classifier): number {
  let changed = 0;
  // Before any stamp (a new database, or one from before stamps existed) every product is checked.
  const update = db.prepare("UPDATE products SET category = ? WHERE id = ?");
  for (const [id, name, manufacturer, category] of db.query("SELECT id, name, manufacturer, category FROM products").values() as [number, string, string | null, string | null][]) {
    const next = classify(name, manufacturer);
    if (next !== category) {
      update.run(next, id);
      changed++;
    }
  }
  return changed;
}
