import type { Database } from "bun:sqlite";
import { bestName, servedName, CURRENT_NAME_MS } from "../../identity/names.ts";
import { detach } from "./detach.ts";
import type { PriceRows } from "./price-rows.ts";
import type { Classifier } from "./classifier.ts";
import { BatchInsert } from "./batch.ts";

interface NameNote {
  /** productHash of the description the chain published (NaN: not computed ahead). */
  hash: number;
  timeMs: number;
  name: string;
  manufacturer: string | null;
}

/** Chain ids stay below this (the registry has a few dozen chains): key = product id × CHAIN_SLOTS + chain id. */
const CHAIN_SLOTS = 4096;

/**
 * Each chain's newest published name and manufacturer per product, noted while a run loads
 * price rows, written to `product_names` at its end; products whose chains' names changed get
 * their served name and manufacturer chosen again by bestName (src/identity/names.ts). One map
 * lookup per price row: a chain's stores publish the same description, so after its first store
 * file a product's note is found with the same hash and nothing else is done.
 *
 * Per-file journal like ProductCache: `rollbackFile()` forgets a rolled-back file's notes.
 */
export class ChainNames {
  private readonly notes = new Map<number, NameNote>();
  private journal: [key: number, previous: NameNote | undefined][] = [];

  /**
   * Notes row `i`'s name for (product, chain) when it is new or newer than the one noted.
   * @example names.note(17, 3, rows, 0, Date.parse("2026-11-22T05:00:00+02:00"), "חלב 3%")
   */
  note(productId: number, chainId: number, rows: PriceRows, i: number, timeMs: number, knownName: string): void {
    const key = productId * CHAIN_SLOTS + chainId;
    const hash = rows.productHash(i);
    const held = this.notes.get(key);
    if (held !== undefined && (held.hash === hash || timeMs < held.timeMs)) return;
    const item = rows.product(i);
    // A file without a manufacturer does not erase the one the chain gave before.
    const given = item.manufacturer ?? held?.manufacturer ?? null;
    if (held !== undefined && held.name === item.name && held.manufacturer === given) {
      held.hash = hash;
      held.timeMs = timeMs;
      return;
    }
    const name = item.name === knownName ? knownName : held?.name === item.name ? held.name : detach(item.name);
    const manufacturer = held && held.manufacturer === given ? held.manufacturer : detach(given);
    this.journal.push([key, held]);
    this.notes.set(key, { hash, timeMs, name, manufacturer });
  }

  commitFile(): void {
    this.journal = [];
  }

  rollbackFile(): void {
    for (let i = this.journal.length - 1; i >= 0; i--) {
      const [key, previous] = this.journal[i]!;
      if (previous) this.notes.set(key, previous);
      else this.notes.delete(key);
    }
    this.journal = [];
  }

  /**
   * Writes the notes that differ from `product_names` and chooses the served name and
   * manufacturer again for those products (see chooseNames; run after chain_products is
   * refreshed). Returns the products renamed.
   */
  flush(db: Database, classify: Classifier | null): number {
    // One statement per chunk (rows as JSON): an unchanged row is left alone, a changed or new
    // one comes back, and its product has its name chosen again. published_at (when the chain
    // last published the name) is refreshed once it is a tenth of CURRENT_NAME_MS old, not on
    // every run: it only decides whether a name is still current.
    const upsert = db.prepare(
      `INSERT INTO product_names (product_id, chain_id, name, manufacturer, published_at)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?) WHERE true
       ON CONFLICT (product_id, chain_id) DO UPDATE SET name = excluded.name, manufacturer = excluded.manufacturer,
         published_at = max(coalesce(published_at, 0), excluded.published_at)
        WHERE name IS NOT excluded.name OR manufacturer IS NOT excluded.manufacturer
           OR coalesce(published_at, 0) < excluded.published_at - ${Math.round(CURRENT_NAME_MS / 10)}
       RETURNING product_id`,
    );
    const changed = new Set<number>();
    if (!db.query("SELECT 1 FROM product_names LIMIT 1").get()) {
      // A first import: every note is a new row. Written in key order (the table's), in batches.
      const keys = Float64Array.from(this.notes.keys()).sort();
      const insert = new BatchInsert(db, "INSERT INTO product_names (product_id, chain_id, name, manufacturer, published_at) VALUES", 5);
      for (const key of keys) {
        const note = this.notes.get(key)!;
        const productId = Math.floor(key / CHAIN_SLOTS);
        insert.add(productId, key % CHAIN_SLOTS, note.name, note.manufacturer, note.timeMs);
        changed.add(productId);
      }
      insert.flush();
      this.notes.clear();
      return chooseNames(db, changed, classify);
    }
    let chunk: [number, number, string, string | null, number][] = [];
    const write = () => {
      for (const [id] of upsert.values(JSON.stringify(chunk)) as [number][]) changed.add(id);
      chunk = [];
    };
    for (const [key, note] of this.notes) {
      chunk.push([Math.floor(key / CHAIN_SLOTS), key % CHAIN_SLOTS, note.name, note.manufacturer, note.timeMs]);
      if (chunk.length === 20_000) write();
    }
    if (chunk.length > 0) write();
    this.notes.clear();
    return chooseNames(db, changed, classify);
  }
}

/**
 * Chooses the served name and manufacturer of `productIds` from product_names (see servedName in
 * src/identity/names.ts): the chains that sell the product now vote, when any does, and the choice
 * is never a cut prefix of a current name any chain published. Returns how many rows changed.
 */
export function chooseNames(db: Database, productIds: Iterable<number>, classify: Classifier | null): number {
  const ids = [...productIds];
  if (ids.length === 0) return 0;
  const update = db.prepare("UPDATE products SET name = ?, manufacturer = ?, category = coalesce(?, category) WHERE id = ?");
  let renamed = 0;
  const apply = (id: number, name: string | null, manufacturer: string | null, currentName: string, currentManufacturer: string | null) => {
    if (name === null) return;
    const maker = manufacturer ?? currentManufacturer; // no chain naming a manufacturer keeps the one known
    if (currentName === name && currentManufacturer === maker) return;
    update.run(name, maker, classify ? classify(name, maker) : null, id);
    renamed++;
  };
  const contested: number[] = [];
  for (let i = 0; i < ids.length; i += 50_000) {
    // Most products have one name and one manufacturer at every chain: decided without reading rows.
    const groups = db
      .query(
        `SELECT pn.product_id, count(DISTINCT pn.name), count(DISTINCT pn.manufacturer), min(pn.name), min(pn.manufacturer), p.name, p.manufacturer
           FROM product_names pn JOIN products p ON p.id = pn.product_id
          WHERE pn.product_id IN (SELECT value FROM json_each(?))
          GROUP BY pn.product_id`,
      )
      .values(JSON.stringify(ids.slice(i, i + 50_000))) as [number, number, number, string, string | null, string, string | null][];
    for (const [id, names, makers, name, maker, currentName, currentMaker] of groups) {
      if (names > 1 || makers > 1) contested.push(id);
      else apply(id, bestName([name]), maker, currentName, currentMaker);
    }
  }
  if (contested.length === 0) return renamed;
  // The rest: every chain's row, with whether the chain sells the product now and when it last published the name.
  const rows = db
    .query(
      `SELECT pn.product_id, pn.name, pn.manufacturer, p.name AS current_name, p.manufacturer AS current_manufacturer,
              EXISTS (SELECT 1 FROM chain_products cp WHERE cp.product_id = pn.product_id AND cp.chain_id = pn.chain_id) AS sold,
              pn.published_at
         FROM product_names pn JOIN products p ON p.id = pn.product_id
        WHERE pn.product_id IN (SELECT value FROM json_each(?))
        ORDER BY pn.product_id`,
    )
    .values(JSON.stringify(contested)) as [number, string, string | null, string, string | null, number, number | null][];
  let start = 0;
  while (start < rows.length) {
    let end = start;
    while (end < rows.length && rows[end]![0] === rows[start]![0]) end++;
    const all = rows.slice(start, end);
    start = end;
    const published = all.map((r) => ({ name: r[1], manufacturer: r[2], sold: r[5] === 1, publishedAt: r[6] }));
    const { name, manufacturer } = servedName(published);
    apply(all[0]![0], name, manufacturer, all[0]![3], all[0]![4]);
  }
  return renamed;
}
