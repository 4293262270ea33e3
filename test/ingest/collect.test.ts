import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectFiles } from "../../src/ingest/collect.ts";

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
