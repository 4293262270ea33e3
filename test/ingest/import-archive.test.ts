/** `mehir import day.zip`: a zip of several files imports each entry as a file of its own. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/db/open.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/import.ts";
import { fixtureBytes } from "./helpers/fixtures.ts";
import { makeZip } from "./helpers/zip.ts";

const root = mkdtempSync(join(tmpdir(), "mehir-archive-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const expandedFolders = () => new Set(readdirSync(tmpdir()).filter((f) => f.startsWith("mehir-zip-")));

test("every entry of a multi-file .zip is imported and reported under archive:entry; its temporary copy is removed", async () => {
  const entries = ["Stores7290058140886-202211012005.xml", "PriceFull7290058140886-013-202511021215.xml", "PromoFull7290058140886-013-202512120010"];
  const zip = join(root, "rami-levy-day.zip");
  writeFileSync(zip, makeZip([...entries.map((name) => ({ name: `day/${name}`, data: fixtureBytes(name) })), { name: "day/broken.xml", data: new Uint8Array(4096), store: true }]));
  const db = openMemory().prices;
  const before = expandedFolders();
  const report = await importPaths({ db, registry: loadRegistry(), paths: [zip], origin: "cli", source: "live", maxArchiveBytes: 2 ** 20 });
  const rows = report.files.map((f) => [f.path, f.status, f.type, f.rows]);
  expect(rows).toEqual([
    [`${zip}:day/Stores7290058140886-202211012005.xml`, "ok", "stores", 3],
    [`${zip}:day/PriceFull7290058140886-013-202511021215.xml`, "ok", "pricefull", 4],
    [`${zip}:day/PromoFull7290058140886-013-202512120010`, "ok", "promofull", 3],
    [`${zip}:day/broken.xml`, "rejected", null, 0],
  ]);
  // The same rows as importing the files one by one: 3 stores (+ store 13 of the price file), 4 prices.
  expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: 4 });
  expect(db.query("SELECT count(*) AS n FROM stores").get()).toEqual({ n: 4 });
  expect(db.query("SELECT count(*) AS n FROM promotions").get()).toEqual({ n: 3 });
  expect([...expandedFolders()].filter((f) => !before.has(f))).toEqual([]);
});
