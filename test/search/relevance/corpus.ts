/**
 * Corpora of the relevance suite: price databases imported the way the service imports them,
 * and the products search answers with (every product some chain sells; a chain's produce item
 * grouped into a generic product is represented by that generic product, with its names).
 *
 * - demo: the embedded demo (src/demo) generated at a fraction of its assortment with one month
 *   of history (seconds, not the scale-1 first start), imported into an in-memory database.
 * - real: the chains' published files in ../shared/samples/real (absent in a fresh clone: the
 *   caller skips it and says why).
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../../src/db/open.ts";
import { generateDemo } from "../../../src/demo/generate.ts";
import { importPaths } from "../../../src/ingest/run/import.ts";
import { loadRegistry } from "../../../src/registry.ts";

export interface CorpusItem {
  /** `products.id`, what search answers with. */
  id: number;
  barcode: string;
  /** The served name. */
  name: string;
  /** Every name a chain published for it (its grouped items' names for a generic product), the served one first. */
  names: string[];
  manufacturer: string | null;
  generic: boolean;
}

export interface Corpus {
  label: string;
  db: Database;
  items: CorpusItem[];
}

const NOW = new Date("2026-11-22T08:00:00Z");

/** The products search should answer with, read from an imported price database. */
export function corpusOf(label: string, db: Database): Corpus {
  const rows = db
    .query(
      `SELECT p.id, p.barcode, p.name, p.manufacturer, p.scope_chain_id
         FROM products p
        WHERE EXISTS (SELECT 1 FROM chain_products cp WHERE cp.product_id = p.id)
          AND NOT EXISTS (SELECT 1 FROM generic_members g WHERE g.product_id = p.id)
        ORDER BY p.id`,
    )
    .all() as { id: number; barcode: string; name: string; manufacturer: string | null; scope_chain_id: number }[];
  const published = new Map<number, Set<string>>();
  const note = (id: number, name: string) => {
    const set = published.get(id) ?? new Set<string>();
    set.add(name.replace(/\s+/g, " ").trim());
    published.set(id, set);
  };
  for (const r of db.query("SELECT product_id AS id, name FROM product_names").all() as { id: number; name: string }[]) note(r.id, r.name);
  const members = db
    .query(
      `SELECT g.generic_id AS id, p.name FROM generic_members g JOIN products p ON p.id = g.product_id
       UNION ALL
       SELECT g.generic_id AS id, pn.name FROM generic_members g JOIN product_names pn ON pn.product_id = g.product_id`,
    )
    .all() as { id: number; name: string }[];
  for (const r of members) note(r.id, r.name);
  const items = rows.map((r) => ({
    id: r.id,
    barcode: r.barcode,
    name: r.name,
    names: [r.name, ...[...(published.get(r.id) ?? [])].filter((n) => n !== r.name)],
    manufacturer: r.manufacturer,
    generic: r.scope_chain_id < 0,
  }));
  return { label, db, items };
}

/**
 * The demo corpus: every chain's files for one month at `scale` of the assortment, imported.
 *
 * @example const demo = await demoCorpus(0.3) // ≈ 4,000 products
 */
export async function demoCorpus(scale = 0.3): Promise<Corpus> {
  const registry = loadRegistry();
  const dir = mkdtempSync(join(tmpdir(), "mehir-relevance-demo-"));
  try {
    await generateDemo({ registry, outDir: dir, seed: 1, now: NOW, scale, months: 1, parallel: false });
    const db = openMemory().prices;
    await importPaths({ db, registry, paths: [dir], origin: "demo", source: "demo", now: () => NOW });
    return corpusOf("demo", db);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The corpus of the published sample files in `dir`. */
export async function realCorpus(dir: string): Promise<Corpus> {
  const db = openMemory().prices;
  await importPaths({ db, registry: loadRegistry(), paths: [dir], origin: "cli", source: "live", now: () => new Date("2026-11-23T10:00:00Z") });
  return corpusOf("real", db);
}
