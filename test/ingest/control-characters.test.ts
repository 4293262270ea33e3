/**
 * Audit I7: a NUL byte inside a published item name was stored and served. Control characters
 * (C0 other than whitespace, and DEL) are dropped at import, in names of items, manufacturers
 * and stores alike; the rest of the name is kept.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/db/open.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { cleanText } from "../../src/ingest/dialects/values.ts";
import { loadRegistry } from "../../src/registry.ts";
import { fixtureBytes } from "../helpers/ingest/fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "mehir-control-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("cleanText drops NUL and other control characters, keeps tabs and line breaks as spaces", () => {
  expect(cleanText("במבה\u0000 אסם")).toBe("במבה אסם");
  expect(cleanText("\u0000חלב\u0001\u001F\u007F 3%\u0000")).toBe("חלב 3%");
  expect(cleanText("a\tb\r\nc")).toBe("a b c");
  expect(cleanText("\u0000")).toBeNull();
});

test("a price file with a NUL inside an item name imports the name without it", async () => {
  const name = "PriceFull7290058140886-013-202511021215.xml";
  const xml = new TextDecoder().decode(fixtureBytes(name));
  expect(xml).toContain("<ItemName>במבה אסם 80 גרם</ItemName>");
  const hostile = xml.replace("<ItemName>במבה אסם 80 גרם</ItemName>", "<ItemName>במבה\u0000 אסם\u0007 80 גרם\u007F</ItemName>");
  writeFileSync(join(root, name), hostile);
  const db = openMemory().prices;
  const report = await importPaths({ db, registry: loadRegistry(), paths: [join(root, name)], origin: "cli", source: "live" });
  expect(report.status).toBe("ok");
  const names = (db.query("SELECT name FROM products ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  expect(names).toContain("במבה אסם 80 גרם");
  expect(names.some((n) => /[\u0000-\u001F\u007F]/.test(n))).toBe(false);
  const history = db.query("SELECT count(*) AS n FROM products WHERE instr(name, char(0)) > 0").get();
  expect(history).toEqual({ n: 0 });
});
