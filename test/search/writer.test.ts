import { expect, test } from "bun:test";
import { newEngine } from "../../src/search/build.ts";
import { analyzeName, prefixStems } from "../../src/search/hebrew.ts";
import { IndexWriter } from "../../src/search/writer.ts";
import { CATALOGUE } from "../helpers/search/catalogue-db.ts";

test("IndexWriter leaves the index exactly as MiniSearch#add does", () => {
  const docs = CATALOGUE.map((p, id) => {
    const { terms } = analyzeName(p.name);
    return { id, name: terms.join(" "), brand: p.manufacturer ? analyzeName(p.manufacturer).terms.join(" ") : "", nameAlt: terms.flatMap((t) => prefixStems(t)).join(" ") };
  });
  const viaAdd = newEngine();
  viaAdd.addAll(docs);
  const viaWriter = newEngine();
  const writer = new IndexWriter(viaWriter, ["name", "brand", "nameAlt"]);
  for (const doc of docs) writer.add(doc);
  expect(viaWriter.documentCount).toBe(viaAdd.documentCount);
  expect(viaWriter.termCount).toBe(viaAdd.termCount);
  expect(JSON.stringify(viaWriter)).toBe(JSON.stringify(viaAdd));
  for (const q of ["חלב", "במבה נוגט", "קפה טו", "שוקולאד"]) {
    const options = { prefix: true, fuzzy: 0.2, fields: ["name", "brand", "nameAlt"] };
    expect(viaWriter.search(q, options)).toEqual(viaAdd.search(q, options));
  }
});

test("IndexWriter refuses a field the index does not have", () => {
  expect(() => new IndexWriter(newEngine(), ["name", "nope" as "name"])).toThrow(/not a field/);
});
