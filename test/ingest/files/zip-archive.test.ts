import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { expandZipArchive, priceEntries } from "../../../src/ingest/files/zip-archive.ts";
import { readZipEntries } from "../../../src/ingest/files/zip.ts";
import { makeZip, overlappingZip } from "../../helpers/ingest/zip.ts";

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
    const out = await expandZipArchive(zip, "/in/day.zip", { maxEntryBytes: 2 ** 20, maxArchiveBytes: 2 ** 20, run: { left: 2 ** 30, max: 2 ** 30 }, parent });
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
    const out = await expandZipArchive(zip, "x.zip", { maxEntryBytes: 1000, maxArchiveBytes: 1500, run: { left: 2 ** 30, max: 2 ** 30 }, parent });
    expect(out.files.map((f) => f.source)).toEqual(["x.zip:a.xml", "x.zip:b.xml"]);
    expect(out.rejected.map((r) => r.source)).toEqual(["x.zip:big.xml", "x.zip:c.xml"]);
    expect(out.rejected[0]!.reason).toContain("1000-byte limit");
    expect(out.rejected[1]!.reason).toContain("limit");
  });

  test("the run's limit holds across archives: what one wrote is gone from the next one's share", async () => {
    const zip = makeZip([
      { name: "a.xml", data: new Uint8Array(600) },
      { name: "b.xml", data: new Uint8Array(600) },
    ]);
    const run = { left: 1000, max: 1000 };
    const first = await expandZipArchive(zip, "one.zip", { maxEntryBytes: 1000, maxArchiveBytes: 1000, run, parent });
    const second = await expandZipArchive(zip, "two.zip", { maxEntryBytes: 1000, maxArchiveBytes: 1000, run, parent });
    expect(first.files.map((f) => f.source)).toEqual(["one.zip:a.xml"]);
    expect(second.files).toEqual([]);
    expect(second.rejected.map((r) => r.reason)).toEqual([
      "zip entry a.xml not written: it would pass the run's 1000-byte limit on expanded archives (MEHIR_IMPORT_MAX_RUN_BYTES)",
      "zip entry b.xml not written: it would pass the run's 1000-byte limit on expanded archives (MEHIR_IMPORT_MAX_RUN_BYTES)",
    ]);
    expect(run.left).toBe(400);
  });

  test("an entry that cannot be written (a path colliding with a file, a name too long) is rejected; the others are written", async () => {
    const zip = makeZip([
      { name: "A.xml", data: text("<Root>a</Root>") },
      { name: "A.xml/B.xml", data: text("<Root>b</Root>") },
      { name: `${"x".repeat(300)}.xml`, data: text("<Root>c</Root>") },
      { name: "C.xml", data: text("<Root>d</Root>") },
    ]);
    const out = await expandZipArchive(zip, "bad.zip", { maxEntryBytes: 1000, maxArchiveBytes: 10_000, run: { left: 10_000, max: 10_000 }, parent });
    expect(out.files.map((f) => f.source)).toEqual(["bad.zip:A.xml", "bad.zip:C.xml"]);
    expect(out.rejected).toEqual([
      { source: "bad.zip:A.xml/B.xml", reason: expect.stringMatching(/collides with another entry \((EEXIST|ENOTDIR)\)/) },
      { source: `bad.zip:${"x".repeat(300)}.xml`, reason: "could not be written out: its name is too long for the file system (ENAMETOOLONG)" },
    ]);
  });

  test("entries sharing compressed data (one stream named many times) refuse the archive before anything is written", async () => {
    const before = readdirSync(parent).length;
    const zip = overlappingZip(new Uint8Array(100_000), 40);
    await expect(expandZipArchive(zip, "bomb.zip", { maxEntryBytes: 2 ** 20, maxArchiveBytes: 2 ** 30, run: { left: 2 ** 30, max: 2 ** 30 }, parent })).rejects.toThrow(/overlap/);
    expect(readdirSync(parent).length).toBe(before);
  });
});

