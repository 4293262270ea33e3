import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { expandZipArchive, priceEntries } from "../../../src/ingest/files/zip-archive.ts";
import { readZipEntries } from "../../../src/ingest/files/zip.ts";
import { makeZip } from "../helpers/zip.ts";

const parent = mkdtempSync(join(tmpdir(), "mehir-zip-test-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
const text = (s: string) => new TextEncoder().encode(s);

describe("expandZipArchive", () => {
  test("writes each price-file entry inside its folder; folders, hidden files and __MACOSX are left out", async () => {
    const zip = makeZip([
      { name: "day/", data: new Uint8Array(), store: true },
      { name: "day/Stores7290058140886-202211012005.xml", data: text("<Root>a</Root>") },
      { name: "day/PriceFull7290058140886-001-202211021215.xml", data: text("<Root>bb</Root>"), store: true },
      { name: "__MACOSX/day/._PriceFull7290058140886-001-202211021215.xml", data: text("junk") },
      { name: "day/.DS_Store", data: text("junk") },
      // A crafted name must not escape the folder.
      { name: "../../PromoFull7290058140886-001-202211021215.xml", data: text("<Root>ccc</Root>") },
    ]);
    expect(priceEntries(readZipEntries(zip)).map((e) => e.name)).toEqual([
      "day/Stores7290058140886-202211012005.xml",
      "day/PriceFull7290058140886-001-202211021215.xml",
      "../../PromoFull7290058140886-001-202211021215.xml",
    ]);
    const out = await expandZipArchive(zip, "/in/day.zip", { maxBytes: 2 ** 20, maxTotalBytes: 2 ** 20, parent });
    expect(relative(parent, out.folder).startsWith("mehir-zip-")).toBe(true);
    expect(out.files.map((f) => [relative(out.folder, f.path), f.size, f.source])).toEqual([
      ["day/Stores7290058140886-202211012005.xml", 14, "/in/day.zip:day/Stores7290058140886-202211012005.xml"],
      ["day/PriceFull7290058140886-001-202211021215.xml", 15, "/in/day.zip:day/PriceFull7290058140886-001-202211021215.xml"],
      ["PromoFull7290058140886-001-202211021215.xml", 16, "/in/day.zip:../../PromoFull7290058140886-001-202211021215.xml"],
    ]);
    expect(readFileSync(out.files[1]!.path, "utf8")).toBe("<Root>bb</Root>");
    expect(out.rejected).toEqual([]);
    expect(readdirSync(parent).filter((f) => f.endsWith(".xml"))).toEqual([]);
  });

  test("an entry over the size limit, and entries past the archive's total, are rejected with a reason", async () => {
    const zip = makeZip([
      { name: "big.xml", data: new Uint8Array(5000) },
      { name: "a.xml", data: new Uint8Array(600) },
      { name: "b.xml", data: new Uint8Array(600) },
      { name: "c.xml", data: new Uint8Array(600) },
    ]);
    const out = await expandZipArchive(zip, "x.zip", { maxBytes: 1000, maxTotalBytes: 1500, parent });
    expect(out.files.map((f) => f.source)).toEqual(["x.zip:a.xml", "x.zip:b.xml"]);
    expect(out.rejected.map((r) => r.source)).toEqual(["x.zip:big.xml", "x.zip:c.xml"]);
    expect(out.rejected[0]!.reason).toContain("1000-byte limit");
    expect(out.rejected[1]!.reason).toContain("limit");
  });
});
