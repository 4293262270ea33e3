/**
 * Carrefour's 2026 listing page (issue 47; portals-2026.md §2d): the day's folder and its files are
 * a JSON array in the page's script, with 5-part file names (sub-chain, store, date, time). A page
 * written for the repository in that shape (test/fixtures/sources/carrefour-2026-listing.html).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { parseFileName } from "../../../src/ingest/files/name.ts";
import { readPublishPricePage } from "../../../src/ingest/sources/publishprice.ts";

const html = await Bun.file(join(import.meta.dir, "../../fixtures/sources/carrefour-2026-listing.html")).text();

test("the 2026 Carrefour page: its folder and every file, each name read as chain, store and time", () => {
  const page = readPublishPricePage(html);
  expect(page.path).toBe("20260717");
  expect(page.files.map((f) => [f.name, f.size])).toEqual([
    ["Stores7290055700007-000-20260717-000100.xml", 182344],
    ["PriceFull7290055700007-001-416-20260717-000012.gz", 402981],
    ["PromoFull7290055700007-001-416-20260717-000012.gz", 88120],
    ["Price7290725900003-002-9032-20260717-040000.gz", 1204],
  ]);
  expect(page.files.map((f) => parseFileName(f.name!)).map((n) => [n?.type, n?.chainCode, n?.storeCode, n?.time])).toEqual([
    ["stores", "7290055700007", null, "2026-07-17T00:01:00+03:00"],
    ["pricefull", "7290055700007", "416", "2026-07-17T00:00:12+03:00"],
    ["promofull", "7290055700007", "416", "2026-07-17T00:00:12+03:00"],
    ["price", "7290725900003", "9032", "2026-07-17T04:00:00+03:00"],
  ]);
});
