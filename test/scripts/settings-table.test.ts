import { expect, test } from "bun:test";
import { SettingsSchema, envName, flagName, loadSettings } from "../../src/config.ts";
import { settingsTable } from "../../scripts/settings-table.ts";

test("the settings table has one row per setting, with both spellings and the real default", () => {
  const table = settingsTable();
  const rows = table.split("\n").slice(2);
  const keys = Object.keys(SettingsSchema.shape);
  expect(rows.length).toBe(keys.length);
  const defaults = loadSettings({}) as Record<string, unknown>;
  keys.forEach((key, i) => {
    const cells = rows[i]!.split(" | ");
    expect(cells[0]).toBe(`| \`${envName(key)}\``);
    expect(cells[1]).toBe(`\`${flagName(key)}\``);
    const value = defaults[key];
    const shown = value === undefined ? "—" : typeof value === "boolean" ? (value ? "`on`" : "`off`") : `\`${value}\``;
    expect(cells[2]).toBe(shown);
  });
  expect(table).toContain("| `MEHIR_METRICS` | `--metrics` | `on` |");
  expect(table).toContain("`demo`, `live`");
});

test("the operations guide carries the current table (regenerate with bun scripts/settings-table.ts)", async () => {
  const doc = await Bun.file(new URL("../../docs/operations.md", import.meta.url)).text();
  expect(doc).toContain(settingsTable());
});

test("the operations guide documents running the binary as a service, behind TLS, backups and upgrades", async () => {
  const doc = await Bun.file(new URL("../../docs/operations.md", import.meta.url)).text();
  for (const heading of ["## Running as a service (systemd)", "## Behind a reverse proxy with TLS", "## Backups", "## Upgrades", "## Settings"]) {
    expect(doc).toContain(heading);
  }
  for (const file of ["deploy/mehir.service", "deploy/Caddyfile", "deploy/nginx.conf", "deploy/env.example"]) {
    expect(doc).toContain(file);
    expect(await Bun.file(new URL(`../../${file}`, import.meta.url)).exists()).toBe(true);
  }
});

test("every MEHIR_* variable the code reads is a setting of the table (and so of zod validation)", async () => {
  const settings = new Set(Object.keys(SettingsSchema.shape).map(envName));
  const glob = new Bun.Glob("**/*.ts");
  const unknown: string[] = [];
  for await (const file of glob.scan({ cwd: new URL("../../src", import.meta.url).pathname })) {
    const text = await Bun.file(new URL(`../../src/${file}`, import.meta.url)).text();
    for (const [token] of text.matchAll(/MEHIR_[A-Z0-9_]+/g)) {
      // `MEHIR_QUOTA_` in prose stands for the family of MEHIR_QUOTA_FREE/BASIC/PRO.
      const known = token.endsWith("_") ? [...settings].some((s) => s.startsWith(token)) : settings.has(token);
      if (!known) unknown.push(`${file}: ${token}`);
    }
  }
  expect(unknown).toEqual([]);
});
