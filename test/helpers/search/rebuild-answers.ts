/**
 * Recorded answers of a rebuilt index (test/search/rebuild-answers.test.ts): the fixture
 * catalogue with other published names, grouped loose produce and a few stored categories,
 * asked the fixture queries and words, prefixes and typos taken from its names. A rebuild made
 * faster must answer exactly as before; after a deliberate change to analysis or ranking, record
 * again and review the difference:
 *
 *   bun test/helpers/search/rebuild-answers.ts   (writes test/fixtures/search/rebuild-answers.json)
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import queries from "../../fixtures/search/queries.json" with { type: "json" };
import { openDatabase } from "../../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../../src/db/price-schema.ts";
import { ProductSearch } from "../../../src/search/index.ts";
import { CATALOGUE, catalogueDatabase } from "./catalogue-db.ts";

export const ANSWERS_PATH = new URL("../../fixtures/search/rebuild-answers.json", import.meta.url).pathname;

export interface RecordedAnswers {
  /** Query → its total and the barcodes of its first page (20). */
  queries: Record<string, { total: number; first: string[] }>;
  /** Barcode → the category the index holds for it. */
  categories: Record<string, string | null>;
}

/**
 * The fixture catalogue's database with every path of the index builder used: names other
 * chains publish (some cut, some with extra words), a generic product grouping three items,
 * and stored categories beside classified ones.
 */
export function answersDatabase(): { db: Database; idOf: Map<string, number> } {
  const { db, idOf, chainIds } = catalogueDatabase();
  const chains = [...chainIds.values()];
  const named = db.prepare("INSERT OR REPLACE INTO product_names (product_id, chain_id, name) VALUES (?, ?, ?)");
  db.transaction(() => {
    CATALOGUE.forEach((p, i) => {
      const id = idOf.get(p.barcode)!;
      const words = p.name.split(" ");
      if (i % 5 === 0) named.run(id, chains[0]!, words.slice(0, Math.max(1, words.length - 2)).join(" ")); // a cut name
      if (i % 7 === 0) named.run(id, chains[1]!, `${words.reverse().join(" ")} מבצע`); // other order, an extra word
      if (i % 11 === 0) db.run("UPDATE products SET category = 'other' WHERE id = ?", [id]);
    });
    // Loose produce: a generic product answering for three items of the catalogue.
    const generic = db.query("INSERT INTO products (scope_chain_id, barcode, barcode_key, name, updated_at) VALUES (-1, 'g-test', 'g-test', 'פריטי בדיקה', '2026-11-22T05:00:00+02:00') RETURNING id").get() as { id: number };
    db.run("INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode) VALUES (?, 'g-test', ?, 3, 990, 990, 990)", [chains[0]!, generic.id]);
    for (const p of CATALOGUE.slice(30, 33)) db.run("INSERT INTO generic_members (product_id, generic_id) VALUES (?, ?)", [idOf.get(p.barcode)!, generic.id]);
    idOf.set("g-test", generic.id);
  })();
  return { db, idOf };
}

/** The query list: the fixture queries, then each name's first word, first two words, a prefix and a typo. */
function questions(): string[] {
  const out = new Set<string>(queries.map((q) => q.q));
  CATALOGUE.forEach((p, i) => {
    const words = p.name.split(" ");
    if (i % 3 === 0) out.add(words[0]!);
    if (i % 4 === 0 && words.length > 1) out.add(words.slice(0, 2).join(" "));
    if (i % 6 === 0 && words[0]!.length >= 3) out.add(words[0]!.slice(0, 2));
    if (i % 9 === 0 && words[0]!.length >= 5) out.add(words[0]!.slice(0, 2) + words[0]!.slice(3)); // one letter left out
  });
  return [...out];
}

/**
 * Builds the index and records its answers. With `fromFile` the database is copied to a file
 * first, so the rows are read and analysed by the rebuild's worker (in memory, on the test's thread).
 */
export async function recordAnswers(fromFile = false): Promise<RecordedAnswers> {
  const { db: memory, idOf } = answersDatabase();
  const dir = fromFile ? mkdtempSync(join(tmpdir(), "mehir-rebuild-answers-")) : null;
  let db = memory;
  if (dir) {
    await Bun.write(join(dir, "prices.sqlite"), memory.serialize());
    memory.close();
    db = openDatabase(join(dir, "prices.sqlite"), PRICE_MIGRATIONS);
  }
  const search = new ProductSearch({ cacheEntries: 0 });
  await search.rebuild(db);
  const barcodeOf = new Map([...idOf].map(([barcode, id]) => [id, barcode]));
  const answers: RecordedAnswers = { queries: {}, categories: {} };
  for (const q of questions()) {
    const page = search.search({ q, limit: 20, offset: 0 });
    answers.queries[q] = { total: page.total, first: page.ids.map((id) => barcodeOf.get(id)!) };
  }
  for (const [barcode, id] of idOf) answers.categories[barcode] = search.categoryOf(id);
  db.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  return answers;
}

if (import.meta.main) {
  const { setLogLevel } = await import("../../../src/lib/log.ts");
  setLogLevel("warn");
  const answers = await recordAnswers();
  await Bun.write(ANSWERS_PATH, JSON.stringify(answers, null, 1) + "\n");
  console.log(`wrote ${ANSWERS_PATH}: ${Object.keys(answers.queries).length} queries`);
}
