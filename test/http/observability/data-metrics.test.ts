import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../../src/db/price-schema.ts";
import { writerActive } from "../../../src/http/observability/data-metrics.ts";
import { importProgressLogger } from "../../../src/ingest/run/progress.ts";

const dir = mkdtempSync(join(tmpdir(), "mehir-data-metrics-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("writerActive: true exactly while another connection holds the write transaction; the probe leaves the busy timeout as it was", () => {
  const server = openDatabase(join(dir, "prices.sqlite"), PRICE_MIGRATIONS);
  const importer = openDatabase(join(dir, "prices.sqlite"), PRICE_MIGRATIONS);
  try {
    expect(writerActive(server)).toBe(false);
    importer.run("BEGIN IMMEDIATE");
    importer.run("INSERT INTO meta (key, value) VALUES ('probe', '1')");
    expect(writerActive(server)).toBe(true);
    expect(server.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 10000 });
    importer.run("COMMIT");
    expect(writerActive(server)).toBe(false);
    // The probe wrote nothing and left no transaction open.
    expect(server.inTransaction).toBe(false);
    expect(server.query("SELECT value FROM meta WHERE key = 'probe'").get()).toEqual({ value: "1" });
  } finally {
    server.close();
    importer.close();
  }
});

test("importProgressLogger: the first file, then at most one line per interval, and the last file", () => {
  let now = 0;
  const lines: Record<string, unknown>[] = [];
  const progress = importProgressLogger("fetch", (msg, fields) => lines.push({ msg, ...fields }), 10_000, () => now);
  for (let done = 1; done <= 100; done++) {
    now = done * 1000; // one file a second
    progress(done, 100, `f${done}.gz`);
  }
  expect(lines.map((l) => l.files_done)).toEqual([1, 11, 21, 31, 41, 51, 61, 71, 81, 91, 100]);
  expect(lines[0]).toEqual({ msg: "import: progress", origin: "fetch", files_done: 1, files_total: 100, percent: 1, file: "f1.gz" });
  expect(lines.at(-1)).toMatchObject({ files_done: 100, percent: 100 });
});
