/** `mehir import day.zip`: a zip of several files imports each entry as a file of its own. */
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../../src/db/open.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { importPaths } from "../../../src/ingest/run/import.ts";
import { fixtureBytes } from "../../helpers/ingest/fixtures.ts";
import { makeZip, overlappingZip } from "../../helpers/ingest/zip.ts";

const MAIN = join(import.meta.dir, "../../../src/main.ts");

const root = mkdtempSync(join(tmpdir(), "mehir-archive-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const expandedFolders = () => new Set(readdirSync(tmpdir()).filter((f) => f.startsWith("mehir-zip-")));

test("every entry of a multi-file .zip is imported and reported under archive:entry; its temporary copy is removed", async () => {
  const entries = ["Stores7290058140886-202211012005.xml", "PriceFull7290058140886-013-202511021215.xml", "PromoFull7290058140886-013-202512120010"];
  const zip = join(root, "rami-levy-day.zip");
  writeFileSync(zip, makeZip([...entries.map((name) => ({ name: `day/${name}`, data: fixtureBytes(name) })), { name: "day/broken.xml", data: new Uint8Array(4096), store: true }]));
  const db = openMemory().prices;
  const before = expandedFolders();
  const report = await importPaths({ db, registry: loadRegistry(), paths: [zip], origin: "cli", source: "live", archiveLimits: { maxArchiveBytes: 2 ** 20 } });
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
  // The file's three promotions were read; the one that ended on 2026-01-03 (over 30 days ago) is
  // pruned after the import (retention: docs/operations.md "Retention and disk").
  expect(db.query("SELECT count(*) AS n FROM promotions").get()).toEqual({ n: 2 });
  expect([...expandedFolders()].filter((f) => !before.has(f))).toEqual([]);
});

/**
 * Hostile archives through the real CLI (audit F4): one small stream named 40 times (a disk
 * filler), a file/folder collision and a 300-character entry name sit beside valid files. The
 * bad archive and entries are reported by name and skipped, the valid files (loose and inside
 * the archives) are imported, no more than the run's limit is unpacked and no `mehir-zip-*`
 * folder is left in TMPDIR.
 */
test("mehir import: hostile zips are reported and skipped, the rest imports, no temporary folder is left", async () => {
  const base = join(root, "cli");
  const input = join(base, "in");
  const tmp = join(base, "tmp");
  const dataDir = join(base, "data");
  for (const dir of [input, tmp]) mkdirSync(dir, { recursive: true });
  const price = "PriceFull7290058140886-013-202511021215.xml";
  const stores = "Stores7290058140886-202211012005.xml";
  // 40 entries × 2 MiB from one stream: 80 MiB unpacked without the overlap check.
  writeFileSync(join(input, "overlap-bomb.zip"), overlappingZip(new Uint8Array(2 * 2 ** 20), 40));
  const long = `${"x".repeat(300)}.xml`;
  writeFileSync(
    join(input, "collision.zip"),
    makeZip([
      { name: "A.xml", data: fixtureBytes(stores) },
      { name: "A.xml/B.xml", data: fixtureBytes(price) },
      { name: long, data: fixtureBytes(price) },
      { name: "PromoFull7290058140886-013-202512120010", data: fixtureBytes("PromoFull7290058140886-013-202512120010") },
    ]),
  );
  // Two 3 MiB entries: the second passes the run's 4 MiB limit (set below) and is not unpacked.
  writeFileSync(join(input, "big.zip"), makeZip([{ name: "big-1.xml", data: new Uint8Array(3 * 2 ** 20) }, { name: "big-2.xml", data: new Uint8Array(3 * 2 ** 20) }]));
  writeFileSync(join(input, price), fixtureBytes(price));

  const child = Bun.spawn([process.execPath, MAIN, "import", input, "--data-dir", dataDir, "--source", "live", "--json"], {
    env: { ...process.env, TMPDIR: tmp, MEHIR_IMPORT_MAX_RUN_BYTES: String(4 * 2 ** 20), MEHIR_LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(exitCode, err).toBe(0);
  const report = JSON.parse(out) as { status: string; files: { path: string; status: string; reason: string | null; rows: number }[] };
  const byPath = new Map(report.files.map((f) => [f.path, f]));
  expect(report.status).toBe("partial");
  expect(byPath.get(join(input, "overlap-bomb.zip"))).toMatchObject({ status: "rejected", reason: expect.stringContaining("overlap") });
  expect(byPath.get(`${join(input, "collision.zip")}:A.xml/B.xml`)).toMatchObject({ status: "rejected", reason: expect.stringContaining("collides with another entry") });
  expect(byPath.get(`${join(input, "collision.zip")}:${long}`)).toMatchObject({ status: "rejected", reason: expect.stringContaining("ENAMETOOLONG") });
  expect(byPath.get(`${join(input, "big.zip")}:big-2.xml`)).toMatchObject({ status: "rejected", reason: expect.stringContaining("MEHIR_IMPORT_MAX_RUN_BYTES") });
  // Valid files beside the bad ones, loose and inside the damaged archive, are imported.
  expect(byPath.get(join(input, price))).toMatchObject({ status: "ok", rows: 4 });
  expect(byPath.get(`${join(input, "collision.zip")}:A.xml`)).toMatchObject({ status: "ok", rows: 3 });
  expect(byPath.get(`${join(input, "collision.zip")}:PromoFull7290058140886-013-202512120010`)).toMatchObject({ status: "ok", rows: 3 });
  const db = new Database(join(dataDir, "prices.sqlite"), { readonly: true });
  try {
    expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: 4 });
    // Three read, the one ended over 30 days ago pruned after the import (retention).
    expect(db.query("SELECT count(*) AS n FROM promotions").get()).toEqual({ n: 2 });
  } finally {
    db.close();
  }
  expect(readdirSync(tmp).filter((f) => f.startsWith("mehir-zip-"))).toEqual([]);
}, 120_000);
