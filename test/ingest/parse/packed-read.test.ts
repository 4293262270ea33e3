/**
 * The importer's packed read (readPriceFilePacked: rows streamed straight into the packed form,
 * products remembered across the files of a run) gives exactly what packing readPriceFile's
 * records gives — on every fixture and published sample, read twice with one memo (the second
 * read takes every product from the memo), and on hand-made rows that must not be taken from it.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { packParsed, type PackedPrices } from "../../../src/ingest/parse/packed.ts";
import { readPriceFile, readPriceFilePacked } from "../../../src/ingest/parse/read-file.ts";
import { ProductMemo } from "../../../src/ingest/dialects/product-facts.ts";
import { SpentBytes } from "../../../src/ingest/files/release.ts";
import { REAL_SAMPLES, realSamplesFor } from "../../helpers/real-samples.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/ingest");

function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .flatMap((path) => (statSync(path).isDirectory() ? filesIn(path) : [path]))
    .filter((path) => !/\.(ts|md)$/.test(path));
}

function expectSameAsRecords(bytes: Uint8Array, fileName: string, memo: ProductMemo, spent?: SpentBytes): PackedPrices | null {
  const general = readPriceFile(bytes, fileName);
  // As a parse worker reads: the previous file's inflated bytes are freed before this one is inflated.
  const packed = readPriceFilePacked(bytes, fileName, memo, { spent });
  const expected = packParsed(general.parsed);
  // Typed arrays as plain arrays: toEqual tells NaN from NaN inside a Float64Array.
  const plain = (p: object) => ("numbers" in p ? { ...p, numbers: Array.from((p as PackedPrices).numbers), offsets: Array.from((p as PackedPrices).offsets) } : p);
  expect(plain(packed.parsed)).toEqual(plain(expected));
  expect({ ...packed, parsed: null }).toEqual({ ...general, parsed: null });
  return packed.parsed.kind === "prices-packed" ? packed.parsed : null;
}

/** Reads every file twice with one memo, checking each read against the records' packing. */
async function readTwice(paths: string[]) {
  const memo = new ProductMemo();
  const spent = new SpentBytes();
  let priceFiles = 0;
  const sizes: number[] = [];
  for (const round of [1, 2]) {
    for (const path of paths) {
      const bytes = await Bun.file(path).bytes();
      const fileName = path.split("/").pop()!;
      let packed: PackedPrices | null;
      try {
        packed = expectSameAsRecords(bytes, fileName, memo, spent);
      } catch (error) {
        // Files the reader refuses are refused alike.
        if (!(error as Error).name?.includes("FileRejected") && !(error instanceof Error && "reason" in error)) throw error;
        expect(() => readPriceFilePacked(bytes, fileName, memo)).toThrow((error as Error).message);
        continue;
      }
      if (packed && round === 1) priceFiles++;
    }
    sizes.push(memo.size);
  }
  // The second round found every product of the first.
  expect(sizes[1]).toBe(sizes[0]);
  return { priceFiles, products: memo.size };
}

test("every fixture: packed reads equal packed records, first read and from the memo", async () => {
  const paths = filesIn(FIXTURES);
  expect(paths.length).toBeGreaterThan(10);
  const { priceFiles, products } = await readTwice(paths);
  expect(priceFiles).toBeGreaterThanOrEqual(8);
  expect(products).toBeGreaterThan(10);
});

const realPaths = realSamplesFor("packed reads of the published samples") ? filesIn(REAL_SAMPLES) : [];

test.skipIf(realPaths.length === 0)("every published sample: packed reads equal packed records, first read and from the memo", async () => {
  const { priceFiles, products } = await readTwice(realPaths);
  expect(priceFiles).toBeGreaterThanOrEqual(4);
  expect(products).toBeGreaterThan(1000);
});

const doc = (rows: string) => `<Root><ChainId>7290058140886</ChainId><StoreId>13</StoreId><Items>${rows}</Items></Root>`;
const row = (fields: Record<string, string>) => `<Item>${Object.entries(fields).map(([k, v]) => `<${k}>${v}</${k}>`).join("")}</Item>`;

test("rows that differ in any product field, in an absent field or only in where a separator falls are different products", () => {
  const base = { ItemCode: "7290000066318", ItemType: "1", ItemName: "חלב 3% 1 ליטר", ManufacturerName: "תנובה", ManufactureCountry: "IL", ManufacturerItemDescription: "חלב", UnitQty: "ליטר", Quantity: "1", UnitOfMeasure: "ליטר", bIsWeighted: "0", QtyInPackage: "1", ItemPrice: "5.90", PriceUpdateDate: "2026-11-20 08:00:00" };
  const variants: Record<string, string>[] = [
    base,
    { ...base, ItemPrice: "6.10" },
    { ...base, ItemName: "חלב 3% 2 ליטר" },
    { ...base, Quantity: "2" },
    { ...base, bIsWeighted: "1" },
    { ...base, QtyInPackage: "6" },
    { ...base, ItemType: "0" },
    { ...base, ManufacturerName: "" },
    { ...base, ManufactureCountry: "תנובה", ManufacturerName: "IL" },
  ];
  const { ManufactureCountry: _, ...withoutCountry } = base;
  variants.push(withoutCountry, { ...withoutCountry, ManufacturerItemDescription: "" });
  // Attributes make a field a node: such a row is read afresh.
  const xml = doc(variants.map(row).join("") + `<Item><ItemCode>7290000066318</ItemCode><ItemName lang="he">אחר</ItemName><ItemPrice>1</ItemPrice></Item>`);
  const bytes = new TextEncoder().encode(xml);
  const memo = new ProductMemo();
  for (let i = 0; i < 3; i++) {
    const packed = expectSameAsRecords(bytes, "PriceFull7290058140886-013-202611200800.xml", memo);
    expect(packed!.count).toBe(variants.length + 1);
  }
});

test("values holding U+0000 are told apart wherever it falls", () => {
  const xml = doc(row({ ItemCode: "1", ItemName: "a\u0000b", ManufacturerName: "c", ItemPrice: "1" }) + row({ ItemCode: "1", ItemName: "a", ManufacturerName: "b\u0000c", ItemPrice: "1" }));
  const memo = new ProductMemo();
  expectSameAsRecords(new TextEncoder().encode(xml), "PriceFull7290058140886-013-202611200800.xml", memo);
  expect(memo.size).toBe(2);
});

test("the memo forgets everything past its limit", () => {
  const memo = new ProductMemo(2);
  const xml = doc([1, 2, 3].map((n) => row({ ItemCode: String(n), ItemName: `x${n}`, ItemPrice: "1" })).join(""));
  expectSameAsRecords(new TextEncoder().encode(xml), "PriceFull7290058140886-013-202611200800.xml", memo);
  expect(memo.size).toBe(1);
});
