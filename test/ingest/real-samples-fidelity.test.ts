/**
 * Issue 19 on the real published files in ../shared/samples/real/ (skipped when the folder is
 * absent): list times read from the files themselves, every listed store open after a run, no
 * real promotion left out for its dates, a real file under a dash-after-type name.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/db/open.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { readPriceFile } from "../../src/ingest/parse/read-file.ts";
import { loadRegistry } from "../../src/registry.ts";
import { REAL_SAMPLES, realSamplesFor } from "../helpers/real-samples.ts";

const DIR = REAL_SAMPLES;
const present = realSamplesFor("real-file fidelity");
const NOW = new Date("2026-11-23T10:00:00Z");

describe.skipIf(!present)("real files (../shared/samples/real)", () => {
  // Made when the tests run, not when the file is read (a skipped describe runs no hook).
  let tmp = "";
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "mehir-real-fidelity-"));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test("Stores lists carry their own time: Cerberus header, SAP LASTUPDATEDATE, Matrix <Store Date= Time=>, Super-Pharm rows", async () => {
    const timeOf = async (file: string) => {
      const parsed = readPriceFile(await Bun.file(join(DIR, file)).bytes(), file).parsed;
      if (parsed.kind !== "stores") throw new Error(`${file} is not a Stores file`);
      return [parsed.updatedAt ?? null, parsed.newestRowAt ?? null];
    };
    expect(await timeOf("Stores7290058140886-202211012005.xml")).toEqual(["2022-11-01T20:05:00+02:00", null]);
    expect(await timeOf("Stores7290027600007-000-202211020201")).toEqual(["2022-11-02T00:00:00+02:00", null]);
    expect((await timeOf("StoresFull7290696200003-000-202211020600-000.xml"))[0]).toBe("2022-11-02T06:00:01+02:00");
    expect(await timeOf("StoresFull7290172900007--202211020200")).toEqual([null, "2022-11-02T00:00:00+02:00"]);
  });

  test("one run: every listed store open, listed at its file's time; no real promotion left out for its dates", async () => {
    const db = openMemory().prices;
    const report = await importPaths({ db, registry: loadRegistry(), paths: [DIR], origin: "cli", source: "live", now: () => NOW, parseWorkers: 0 });
    const stores = report.files.filter((f) => f.type === "stores");
    expect(stores.reduce((sum, f) => sum + f.rows, 0)).toBe(58 + 185 + 281 + 405 + 65 + 10);
    expect(stores.every((f) => f.counts.closed === 0)).toBe(true);
    expect(db.query("SELECT count(*) AS n FROM stores WHERE closed_at IS NOT NULL").get()).toEqual({ n: 0 });
    expect(db.query("SELECT count(*) AS n FROM stores WHERE listed_at IS NOT NULL").get()).toEqual({ n: 58 + 185 + 281 + 405 + 65 + 10 });
    const promos = report.files.filter((f) => f.type === "promofull" || f.type === "promo");
    expect(promos.reduce((sum, f) => sum + (f.counts.unreadableDates ?? 0), 0)).toBe(0);
    // Osher Ad 2015: 303 promotions in `2010/05/20` dates, all kept.
    expect(report.files.find((f) => f.fileName.startsWith("PromoFull7290103152017"))!.counts).toMatchObject({ rows: 303, unreadableDates: 0 });
  }, 120_000);

  test("a real Stores file under a dash-after-type name reads its type, chain and time from the name", async () => {
    const renamed = join(tmp, "StoresFull-7290696200003-000-202211020600-000.xml");
    copyFileSync(join(DIR, "StoresFull7290696200003-000-202211020600-000.xml"), renamed);
    const db = openMemory().prices;
    const report = await importPaths({ db, registry: loadRegistry(), paths: [renamed], origin: "cli", source: "live", now: () => NOW, parseWorkers: 0 });
    expect(report.files[0]).toMatchObject({ status: "ok", type: "stores", chainSlug: "victory", fileTime: "2022-11-02T06:00:00+02:00", rows: 65 });
  });
});
