import { describe, expect, test } from "bun:test";
import { listedFile } from "../../../src/ingest/sources/listing.ts";
import { selectFiles } from "../../../src/ingest/sources/select.ts";

const C = "7290058140886";
const f = (name: string) => listedFile(name, `http://x/${name}`);

describe("selectFiles", () => {
  const listing = [
    f(`Stores${C}-202611210500.xml`),
    f(`Stores${C}-202611220500.xml`),
    f(`Stores${C}-202611220900.xml`),
    f(`PriceFull${C}-001-202611220300.gz`),
    f(`PriceFull${C}-001-202611220600.gz`),
    f(`PriceFull${C}-002-202611220310.gz`),
    f(`PromoFull${C}-001-202611220300.gz`),
    f(`Price${C}-001-202611220500.gz`), // before the chosen full
    f(`Price${C}-001-202611220700.gz`),
    f(`NULLPrice${C}-001-202611220800.gz`),
    f(`NULLPriceFull${C}-002-202611220900.gz`),
    f(`PriceFull7290027600007-001-202611220300.gz`), // stray file of another chain
    f(`PriceFull${C}-003-202611210300.gz`), // yesterday
    f("index.html"),
  ];

  test("newest Stores and full files per store for the day; strays, other days, NULL fulls dropped", () => {
    const s = selectFiles(listing, [C], "2026-11-22", false);
    expect(s.files.map((x) => x.fileName)).toEqual([
      `Stores${C}-202611220900.xml`,
      `PromoFull${C}-001-202611220300.gz`,
      `PriceFull${C}-002-202611220310.gz`,
      `PriceFull${C}-001-202611220600.gz`,
    ]);
    expect(s.dropped).toMatchObject({ "other chain": 1, "other day": 2, "not a price file": 1, "NULL placeholder": 1, delta: 3, older: 2 });
  });

  test("with deltas: only deltas after the store's full file, NULL deltas included", () => {
    const s = selectFiles(listing, [C], "2026-11-22", true);
    expect(s.files.slice(4).map((x) => x.fileName)).toEqual([`Price${C}-001-202611220700.gz`, `NULLPrice${C}-001-202611220800.gz`]);
    expect(s.dropped["delta before full"]).toBe(1);
  });

  test("a chain with no Stores file on the day gets its newest earlier one (stores are published on change)", () => {
    const s = selectFiles(
      [f(`Stores${C}-202611190500.xml`), f(`Stores${C}-202611210500.xml`), f(`NULLStores${C}-202611211000.xml`), f(`Stores${C}-202611230500.xml`), f(`PriceFull${C}-001-202611220300.gz`)],
      [C],
      "2026-11-22",
      false,
    );
    expect(s.files.map((x) => x.fileName)).toEqual([`Stores${C}-202611210500.xml`, `PriceFull${C}-001-202611220300.gz`]);
    expect(s.dropped["other day"]).toBe(3);
    // Price files are never taken from another day.
    expect(selectFiles([f(`PriceFull${C}-001-202611210300.gz`)], [C], "2026-11-22", false).files).toEqual([]);
  });

  test("odd chain codes match after normalising", () => {
    const s = selectFiles([f("Stores0000072906390-202611221530.xml")], ["7290639000004", "72906390"], "2026-11-22", false);
    expect(s.files).toHaveLength(1);
  });
});
