import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectFiles } from "../../../src/ingest/run/collect.ts";
import { makeZip } from "../../helpers/ingest/zip.ts";

const root = mkdtempSync(join(tmpdir(), "mehir-collect-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("folders recursively, hidden entries skipped, missing paths listed, a symlink loop read once", async () => {
  mkdirSync(join(root, "day", "chain"), { recursive: true });
  writeFileSync(join(root, "day", "Stores7290058140886-202211012005.xml"), "<Root/>");
  writeFileSync(join(root, "day", "chain", "PriceFull7290058140886-001-202211021215"), "<Root/>");
  writeFileSync(join(root, "day", ".DS_Store"), "x");
  // A link back to the top folder would recurse forever if followed again.
  symlinkSync(join(root, "day"), join(root, "day", "chain", "loop"));
  const found = await collectFiles([join(root, "day"), join(root, "gone")]);
  expect(found.files.map((f) => f.path.slice(root.length + 1)).sort()).toEqual([
    "day/Stores7290058140886-202211012005.xml",
    "day/chain/PriceFull7290058140886-001-202211021215",
  ]);
  expect(found.missing).toEqual([{ path: join(root, "gone"), reason: "no such file or folder" }]);
});

test("a .zip of one file is left to be read in place; a .zip of several is expanded into its entries", async () => {
  mkdirSync(join(root, "zips"));
  const xml = new TextEncoder().encode("<Root/>");
  writeFileSync(join(root, "zips", "PriceFull7290058159628-001-202211021214.zip"), makeZip([{ name: "PriceFull7290058159628-001-202211021214.xml", data: xml }]));
  writeFileSync(join(root, "zips", "day.ZIP"), makeZip([{ name: "a/Stores7290058159628-000-202211021115.xml", data: xml }, { name: "a/PromoFull7290058159628-001-202211021214.xml", data: xml }]));
  const found = await collectFiles([join(root, "zips")], { tempDir: root });
  try {
    expect(found.files.map((f) => [f.path.split("/").pop(), f.size, f.source ?? null])).toEqual([
      ["PriceFull7290058159628-001-202211021214.zip", statSync(join(root, "zips", "PriceFull7290058159628-001-202211021214.zip")).size, null],
      ["Stores7290058159628-000-202211021115.xml", 7, `${join(root, "zips", "day.ZIP")}:a/Stores7290058159628-000-202211021115.xml`],
      ["PromoFull7290058159628-001-202211021214.xml", 7, `${join(root, "zips", "day.ZIP")}:a/PromoFull7290058159628-001-202211021214.xml`],
    ]);
    expect(found.temporary).toHaveLength(1);
    expect(found.temporary[0]!.startsWith(join(root, "mehir-zip-"))).toBe(true);
  } finally {
    for (const folder of found.temporary) rmSync(folder, { recursive: true, force: true });
  }
});
