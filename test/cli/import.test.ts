import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDay } from "../../bench/lib/price-files.ts";
import { formatImportReport, progressLine } from "../../src/cli/import-report.ts";
import type { ImportReport } from "../../src/ingest/run/report.ts";
import { binaPriceXml, binaPromoXml, cerberusStoresXml, writeFiles } from "../helpers/real-shape.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const MAIN = join(import.meta.dir, "../../src/main.ts");
const root = mkdtempSync(join(tmpdir(), "mehir-cli-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function mehir(args: string[]) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "silent" } });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

test("mehir import prints a summary (rejected files by reason); --verbose a per-file table before it; --json the report", () => {
  writeDay(join(root, "files"), { stores: 2, itemsPerStore: 20, products: 100, chains: 1, promos: false }, 1);
  writeFileSync(join(root, "files", "PriceFull7290000000999-001-202611210300.xml"), "<Root><ChainId>7290000000999</ChainId><Items/></Root>");
  writeFileSync(join(root, "files", "notes.txt"), "not a price file");
  writeFileSync(join(root, "files", "readme.txt"), "not one either");
  const data = join(root, "data");
  const summary = mehir(["import", join(root, "files"), "--data-dir", join(root, "data-summary")]);
  expect(summary.code).toBe(0);
  const reasons = summary.stdout.split("\n");
  expect(reasons[0]).toStartWith("imported 3 of 6 files (3 rejected) — 42 rows (40 prices)");
  expect(reasons[1]).toBe("rejected, by reason:");
  expect(reasons[2]).toMatch(/^  2 × .+  \(e\.g\. (notes|readme)\.txt\)$/);
  expect(reasons[3]).toBe("  1 × unknown chain 7290000000999  (e.g. PriceFull7290000000999-001-202611210300.xml)");
  expect(summary.stdout).toContain("per file: mehir import --verbose (or --json)");
  expect(summary.stdout).not.toMatch(/^status\s+type/m);
  expect(summary.stdout).not.toContain("PriceFull7290027600007-001-");
  expect(summary.stderr).toBe(""); // no progress bar off a terminal

  const r = mehir(["import", join(root, "files"), "--data-dir", data, "--verbose"]);
  expect(r.code).toBe(0);
  const lines = r.stdout.split("\n");
  expect(lines[0]).toMatch(/^status\s+type\s+chain\s+store\s+rows\s+file/);
  expect(r.stdout).toMatch(/ok\s+pricefull\s+shufersal\s+1\s+20\s+PriceFull7290027600007-001-/);
  expect(r.stdout).toMatch(/rejected\s+pricefull\s+7290000000999\s+1\s+0\s+PriceFull7290000000999-001-202611210300\.xml\s+unknown chain 7290000000999/);
  expect(r.stdout).toContain("imported 3 of 6 files (3 rejected) — 42 rows (40 prices)");
  expect(r.stdout).toContain("data version 1");

  const json = mehir(["import", join(root, "files"), "--data-dir", data, "--json"]);
  expect(json.code).toBe(0);
  const report = JSON.parse(json.stdout) as ImportReport;
  expect(report).toMatchObject({ status: "partial", dataVersion: 2, origin: "cli", source: "live" });
  expect(report.files).toHaveLength(6);
});

test("exit status 1 when nothing could be imported; usage errors exit 2", () => {
  const bad = join(root, "bad");
  mkdirSync(bad);
  writeFileSync(join(bad, "notes.txt"), "not a price file");
  const r = mehir(["import", bad, "--data-dir", join(root, "data-bad")]);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain("imported 0 of 1 files (1 rejected)");
  expect(r.stdout).toContain("nothing changed");
  expect(mehir(["import", "--data-dir", join(root, "x")]).code).toBe(2);
  expect(mehir(["import", join(root, "no-such-path")]).code).toBe(2);
  expect(mehir(["import", bad, "--source", "staging"]).code).toBe(2);
});

test("files all older than the data already loaded change nothing and are not a failure (exit 0)", () => {
  const plan = { stores: 1, itemsPerStore: 5, products: 20, chains: 1, promos: false };
  writeDay(join(root, "day1"), plan, 1);
  writeDay(join(root, "day2"), plan, 2);
  const data = join(root, "data-older");
  expect(mehir(["import", join(root, "day2"), "--data-dir", data]).code).toBe(0);
  const olderPrices = readdirSync(join(root, "day1")).filter((f) => f.startsWith("PriceFull")).map((f) => join(root, "day1", f));
  const second = mehir(["import", ...olderPrices, "--data-dir", data, "--json"]);
  const report = JSON.parse(second.stdout) as ImportReport;
  expect(report.totals).toMatchObject({ files: 1, skipped: 1, imported: 0 });
  expect(report.files[0]!.reason).toStartWith("older than the prices already loaded");
  expect(report.dataVersion).toBeNull();
  expect(second.code).toBe(0);
});

test("a missing path among others is reported as rejected; the rest imports (exit 0)", () => {
  writeDay(join(root, "some"), { stores: 1, itemsPerStore: 5, products: 20, chains: 1, promos: false }, 1);
  const missing = join(root, "not-there");
  const r = mehir(["import", join(root, "some"), missing, "--data-dir", join(root, "data-some"), "--json"]);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as ImportReport;
  expect(report.status).toBe("partial");
  expect(report.files.find((f) => f.path === missing)).toMatchObject({ status: "rejected", reason: "no such file or folder", rows: 0 });
  expect(report.totals).toMatchObject({ ok: 2, rejected: 1, imported: 2 });
});

// `script` (util-linux) gives the child a terminal, as a user's shell would.
const hasScript = ["/usr/bin/script", "/bin/script"].some((p) => existsSync(p));

test.skipIf(!hasScript)("on a terminal a progress bar counts the files on stderr; without one, none is drawn", () => {
  writeDay(join(root, "tty"), { stores: 2, itemsPerStore: 5, products: 20, chains: 1, promos: false }, 1);
  const command = `${process.execPath} ${MAIN} import ${join(root, "tty")} --data-dir ${join(root, "data-tty")}`;
  const p = Bun.spawnSync(["script", "-q", "-e", "-c", command, "/dev/null"], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "silent", COLUMNS: "100" } });
  expect(p.exitCode).toBe(0);
  const out = p.stdout.toString();
  // Three files (Stores + two PriceFull): the bar is redrawn in place after each, then cleared.
  for (const counter of ["1/3", "2/3", "3/3"]) expect(out).toContain(`${counter}  `);
  expect(out).toContain("█".repeat(24) + " 3/3");
  expect(out).toContain("\r\x1b[2K");
  expect(out).toContain("imported 3 of 3 files");
  const piped = mehir(["import", join(root, "tty"), "--data-dir", join(root, "data-tty2")]);
  expect(piped.stderr).not.toContain("█");
  expect(piped.stdout).toContain("imported 3 of 3 files");
});

test("the progress line fits the terminal and counts files", () => {
  const line = progressLine(3, 12, "/x/PriceFull7290027600007-001-202611210300.gz", 60);
  expect(line.startsWith("\r")).toBe(true);
  expect(line.length).toBeLessThanOrEqual(61);
  expect(line).toContain("3/12");
  expect(formatImportReport({ files: [], totals: { files: 0, ok: 0, partial: 0, rejected: 0, skipped: 0, imported: 0, rows: 0, priceRows: 0 }, durationMs: 5, dataVersion: null, error: "no files to import", replaced: false, source: "live" } as unknown as ImportReport)).toContain(
    "nothing changed: no files to import",
  );
});

test("mehir import prints, per file, what it contained that the service did not use, and why (table and --json)", () => {
  const dir = join(root, "cases");
  const KING = "7290058108879";
  const A = "7290111111112";
  const B = "7290111111129";
  writeFiles(dir, {
    [`Stores${KING}-202611200200.xml`]: cerberusStoresXml(KING, [{ code: "1" }, { code: "2" }, { code: "3" }], null),
    // The same item twice at two prices.
    [`PriceFull${KING}-001-202611200300.xml`]: binaPriceXml(KING, "1", [{ code: A, price: "5.00" }, { code: A, price: "4.50" }]),
    [`PromoFull${KING}-001-202611200300.xml`]: binaPromoXml(KING, "1", [
      { id: "1", items: [A, B], gifts: [A] },
      { id: "2", items: [A], end: "בקרוב", endHour: "" },
    ]),
  });
  const data = join(root, "data-cases");
  expect(mehir(["import", dir, "--data-dir", data]).code).toBe(0);
  // A newer full list without store 3 closes it.
  writeFiles(join(root, "cases2"), { [`Stores${KING}-202611210200.xml`]: cerberusStoresXml(KING, [{ code: "1" }, { code: "2" }], null) });
  const r = mehir(["import", dir, join(root, "cases2"), "--data-dir", data, "--verbose"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/PriceFull7290058108879-001-202611200300\.xml\s+1 repeated, 1 at 2 prices\s/);
  expect(r.stdout).toMatch(/PromoFull7290058108879-001-202611200300\.xml\s+1 awaiting product, 1 gifts, 1 bad dates\s/);
  expect(r.stdout).toMatch(/Stores7290058108879-202611210200\.xml\s+1 closed\s/);
  expect(r.stdout).toContain("cases: 1 repeated, 1 at 2 prices, 1 awaiting product, 1 gifts, 1 bad dates, 1 closed");

  const json = JSON.parse(mehir(["import", dir, "--data-dir", join(root, "data-cases-json"), "--json"]).stdout) as ImportReport & { cases: Record<string, number> };
  const promo = json.files.find((f) => f.fileName.startsWith("PromoFull"))!;
  expect(promo.counts).toMatchObject({ rows: 2, items: 2, gifts: 1, unknownItems: 1, unreadableDates: 1 });
  expect(promo.warnings.join("\n")).toContain('1 promotions left out: dates that cannot be read: 2 ("בקרוב")');
  expect(json.cases).toMatchObject({ duplicates: 1, conflicting: 1, unknownItems: 1, gifts: 1, unreadableDates: 1 });
}, 120_000);
