import { expect, test } from "bun:test";
import { newEngine } from "../../src/search/build.ts";
import { analyzeName, prefixStems } from "../../src/search/hebrew.ts";
import { IndexWriter } from "../../src/search/writer.ts";
import { CATALOGUE } from "../helpers/search/catalogue-db.ts";

type Doc = { id: number; name: string; brand: string; nameAlt: string };

/** The same documents indexed by MiniSearch's own addAll and by an IndexWriter, each in an index of its own. */
function builtBothWays(docs: Doc[]) {
  const viaAdd = newEngine();
  viaAdd.addAll(docs);
  const viaWriter = newEngine();
  const writer = new IndexWriter(viaWriter, ["name", "brand", "nameAlt"]);
  for (const doc of docs) writer.add(doc);
  return { viaAdd, viaWriter, writer };
}

test("IndexWriter leaves the index exactly as MiniSearch#add does", () => {
  const docs = CATALOGUE.map((p, id) => {
    const { terms } = analyzeName(p.name);
    return { id, name: terms.join(" "), brand: p.manufacturer ? analyzeName(p.manufacturer).terms.join(" ") : "", nameAlt: terms.flatMap((t) => prefixStems(t)).join(" ") };
  });
  const { viaAdd, viaWriter } = builtBothWays(docs);
  expect(viaWriter.documentCount).toBe(viaAdd.documentCount);
  expect(viaWriter.termCount).toBe(viaAdd.termCount);
  expect(JSON.stringify(viaWriter)).toBe(JSON.stringify(viaAdd));
  for (const q of ["חלב", "במבה נוגט", "קפה טו", "שוקולאד"]) {
    const options = { prefix: true, fuzzy: 0.2, fields: ["name", "brand", "nameAlt"] };
    expect(viaWriter.search(q, options)).toEqual(viaAdd.search(q, options));
  }
});

test("IndexWriter builds MiniSearch's radix tree node for node, children in the same order, on a large vocabulary", () => {
  // Random words over a few letters: many shared prefixes, wide nodes (indexed by first letter) and split edges.
  let seed = 42;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const letters = "אבגדהוזחטיכלמנסעפצקרשת";
  const word = () => Array.from({ length: 2 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * (random() < 0.5 ? 4 : letters.length))]).join("");
  const docs = Array.from({ length: 3000 }, (_, id) => ({ id, name: [word(), word(), word()].join(" "), brand: random() < 0.3 ? word() : "", nameAlt: [word(), word()].join(" ") }));
  const { viaAdd, viaWriter, writer } = builtBothWays(docs);
  expect(viaWriter.termCount).toBe(viaAdd.termCount);
  expect(viaWriter.termCount).toBeGreaterThan(5000);
  expect(JSON.stringify(viaWriter)).toBe(JSON.stringify(viaAdd));
  expect(writer.fieldLengths().length).toBe(3000 * 3);
});

test("IndexWriter refuses a field the index does not have", () => {
  expect(() => new IndexWriter(newEngine(), ["name", "nope" as "name"])).toThrow(/not a field/);
});
