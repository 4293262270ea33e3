import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { openDatabase, openDataDir, PRICES_FILE } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { loadRegistry } from "../../src/registry.ts";
import { bumpDataVersion } from "../../src/data/data-state.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { writeExport, type Manifest } from "../../src/exports/write.ts";
import { ExportStore } from "../../src/exports/store.ts";
import { runExport } from "../../src/exports/run.ts";
import { csvField, parseCsv } from "../../src/exports/csv.ts";
import { EXPORT_TABLES } from "../../src/exports/tables.ts";
import { Fixture } from "../helpers/fixture.ts";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix = "mehir-export-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

const NOW = new Date("2026-11-22T10:00:00Z");

/** A data dir with a little data: names that need CSV quoting, a chain-internal code, a promotion. */
function dataDir() {
  const dir = tempDir();
  const db = openDataDir(dir);
  const chainIds = syncRegistry(db.prices, loadRegistry());
  const f = new Fixture(db.prices, chainIds);
  const s1 = f.store("shufersal", "1", { name: 'דיל "גדול", חיפה', city: "חיפה", region: "haifa" });
  const s2 = f.store("rami-levy", "2", { city: "כפר נידח", region: "" });
  const milk = f.product("7290000066318", 'חלב 3%, "תנובה"\nמהדרין', { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  const internal = f.product("555", "עגבניות", { scopeChain: "rami-levy" });
  f.product("7290000000001", "לא נמכר"); // no current price: not exported
  f.price(s1, milk, 690);
  f.price(s2, milk, 650);
  f.price(s2, internal, 990);
  f.promotion("rami-levy", "R1", { stores: [s2], items: [milk, internal], minQty: 2, discountedPrice: 1000 });
  f.promotion("rami-levy", "OLD", { stores: [s2], items: [milk], endsAt: "2026-11-01T00:00:00+02:00" });
  refreshChainProducts(db.prices);
  bumpDataVersion(db.prices, "2026-11-22T05:30:00+02:00", "demo");
  return { dir, db };
}

function readTable(dir: string, file: string): string[][] {
  return parseCsv(gunzipSync(readFileSync(join(dir, file))).toString("utf8"));
}

describe("CSV fields", () => {
  test("quoted when holding a comma, quote or line break; quotes doubled; null empty", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('a "b", c')).toBe('"a ""b"", c"');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
    expect(csvField(null)).toBe("");
    expect(csvField(false)).toBe("false");
    expect(parseCsv('a,"b ""q"", c"\r\n"x\ny",\r\n')).toEqual([["a", 'b "q", c'], ["x\ny", ""]]);
  });
});

describe("writeExport", () => {
  test("one gzipped CSV per table with its header, read back to the same values; manifest row counts and SHA-256 match the files", async () => {
    const { dir, db } = dataDir();
    const out = tempDir();
    const manifest = (await writeExport(db.prices, out, NOW))!;
    expect(manifest).toMatchObject({ date: "2026-11-22", data_version: 1, data_updated_at: "2026-11-22T05:30:00+02:00", source: "demo" });
    expect(readdirSync(out).sort()).toEqual([...EXPORT_TABLES.map((t) => t.file), "manifest.json"].sort());
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"))).toEqual(manifest);
    for (const file of manifest.files) {
      const bytes = readFileSync(join(out, file.name));
      expect(file.bytes).toBe(bytes.length);
      expect(file.sha256).toBe(new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
      const rows = readTable(out, file.name);
      expect(rows[0]).toEqual(file.columns);
      expect(rows.length - 1).toBe(file.rows);
    }
    const rowsOf = (name: string) => readTable(out, name).slice(1);
    const chains = rowsOf("chains.csv.gz");
    expect(chains.length).toBe(loadRegistry().chains.length);
    expect(chains.find((r) => r[0] === "rami-levy")!.slice(4)).toEqual(["1", "2"]);
    expect(rowsOf("stores.csv.gz")).toEqual([
      ["rami-levy", "2", "", "סניף 2", "", "כפר נידח", "", "", "", "open", "", "", "", "2026-11-22T05:00:00+02:00"],
      ["shufersal", "1", "", 'דיל "גדול", חיפה', "", "חיפה", "haifa", "", "", "open", "32.794", "34.9896", "true", "2026-11-22T05:00:00+02:00"],
    ]);
    expect(rowsOf("products.csv.gz")).toEqual([
      ["555", "rami-levy", "עגבניות", "", "", "", "", "", "", "", "false"],
      ["7290000066318", "", 'חלב 3%, "תנובה"\nמהדרין', "תנובה", "", "", "", "1000", "ml", "", "false"],
    ]);
    expect(rowsOf("prices.csv.gz").map((r) => [r[0], r[1], r[2], r[3], r[4]])).toEqual([
      ["shufersal", "1", "7290000066318", "", "6.90"],
      ["rami-levy", "2", "7290000066318", "", "6.50"],
      ["rami-levy", "2", "555", "rami-levy", "9.90"],
    ]);
    // The promotion that ended before the export is left out.
    expect(rowsOf("promotions.csv.gz").map((r) => [r[0], r[8], r[13], r[14]])).toEqual([["rami-levy:R1", "10.00", "1", "2"]]);
    expect(rowsOf("promotion_items.csv.gz").map((r) => r.slice(0, 4))).toEqual([
      ["rami-levy:R1", "555", "rami-levy", "false"],
      ["rami-levy:R1", "7290000066318", "", "false"],
    ]);
    db.prices.close();
    db.accounts.close();
  });

  test("reads one snapshot without holding the import's lock: an import commits while the export runs; the export is the data before it", async () => {
    const { dir, db } = dataDir();
    const reader = openDatabase(join(dir, PRICES_FILE), [], { readonly: true });
    const out = tempDir();
    const running = writeExport(reader, out, NOW);
    // The export awaits while gzip works; meanwhile the writer commits a new store and data version.
    const chainId = (db.prices.query("SELECT id FROM chains WHERE slug = 'shufersal'").get() as { id: number }).id;
    db.prices.transaction(() => {
      db.prices.run("INSERT INTO stores (chain_id, chain_code, store_code) VALUES (?, '7290027600007', '77')", [chainId]);
      bumpDataVersion(db.prices, "2026-11-23T05:30:00+02:00", "demo");
    })();
    expect((db.prices.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string }).value).toBe("2");
    const manifest = (await running)!;
    expect(manifest.data_version).toBe(1);
    expect(manifest.files.find((f) => f.name === "stores.csv.gz")!.rows).toBe(2);
    const after = (await writeExport(reader, tempDir(), NOW))!;
    expect([after.data_version, after.files.find((f) => f.name === "stores.csv.gz")!.rows]).toEqual([2, 3]);
    reader.close();
    db.prices.close();
    db.accounts.close();
  });
});

describe("the exports folder", () => {
  test("runExport publishes the data's date, replaces a second export of the same date, and keeps the last 30 dates", async () => {
    const { dir, db } = dataDir();
    const exportsDir = join(dir, "exports");
    const store = new ExportStore(exportsDir);
    // 40 older dates, a stale temporary folder from a killed run.
    for (let i = 1; i <= 40; i++) {
      const date = new Date(Date.parse("2026-11-22T00:00:00Z") - i * 86_400_000).toISOString().slice(0, 10);
      mkdirSync(join(exportsDir, date), { recursive: true });
      Bun.write(join(exportsDir, date, "manifest.json"), JSON.stringify({ date, data_version: 0, files: [] }));
    }
    // A process that has ended, and one that runs (this test's parent): a folder of the first is left by a
    // killed run; one of the second is another server's export under way on the same data dir.
    const ended = Bun.spawn(["true"]);
    await ended.exited;
    const killedRun = `.tmp-${ended.pid}-deadbeef`;
    const otherServer = `.tmp-${process.ppid}-cafebabe`;
    mkdirSync(join(exportsDir, killedRun), { recursive: true });
    mkdirSync(join(exportsDir, otherServer), { recursive: true });
    const job = { dbPath: join(dir, PRICES_FILE), exportsDir, keepDays: 30 };
    const first = await runExport(job, NOW);
    expect(first.manifest!.date).toBe("2026-11-22");
    expect(first.pruned).toContain(killedRun);
    expect(first.pruned).not.toContain(otherServer);
    expect(existsSync(join(exportsDir, otherServer))).toBe(true);
    const dates = store.list().map((m) => m.date);
    expect(dates).toHaveLength(30);
    expect(dates[0]).toBe("2026-11-22");
    expect(dates[29]).toBe("2026-10-24");
    // A second import the same day: the day's export is replaced whole.
    bumpDataVersion(db.prices, "2026-11-22T18:00:00+02:00", "demo");
    const second = await runExport(job, NOW);
    expect(store.manifest("2026-11-22")!.data_version).toBe(second.manifest!.data_version);
    expect(second.manifest!.data_version).toBe(2);
    expect(readdirSync(exportsDir).filter((n) => n.startsWith("."))).toEqual([otherServer]);
    expect(store.filePath("2026-11-22", "../prices.sqlite")).toBeNull();
    expect(store.filePath("2026-11-22", "prices.csv.gz")).toBe(join(exportsDir, "2026-11-22", "prices.csv.gz"));
    expect(existsSync(store.filePath("2026-11-22", "manifest.json")!)).toBe(true);
    db.prices.close();
    db.accounts.close();
  });

  test("nothing imported yet: no export", async () => {
    const dir = tempDir();
    const db = openDataDir(dir);
    const result = await runExport({ dbPath: join(dir, PRICES_FILE), exportsDir: join(dir, "exports"), keepDays: 30 }, NOW);
    expect(result.manifest).toBeNull();
    expect(new ExportStore(join(dir, "exports")).list()).toEqual([] as Manifest[]);
    db.prices.close();
    db.accounts.close();
  });
});
