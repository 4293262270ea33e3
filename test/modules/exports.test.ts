import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createApp } from "../../src/app.ts";
import { createServices, type Services } from "../../src/services.ts";
import { loadSettings } from "../../src/config.ts";
import { openDataDir, PRICES_FILE, type Databases } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DataState } from "../../src/data/data-state.ts";
import { loadRegistry } from "../../src/registry.ts";
import { ensureDemoData } from "../../src/demo/first-start.ts";
import { ExportScheduler } from "../../src/exports/scheduler.ts";
import { EXPORTS_DIR, ExportStore } from "../../src/exports/store.ts";
import { parseCsv } from "../../src/exports/csv.ts";
import { ExportsResponse } from "../../src/modules/exports/model.ts";
import { get } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";

// The demo data (a small scale of every chain, through the real import path), exported by the
// server's own scheduler in its worker, then read back through the API.
const NOW = new Date("2026-11-22T08:00:00Z");
let dir: string;
let db: Databases;
let deps: Services;
let app: ReturnType<typeof createApp>;
let pro: Record<string, string>;
const logged: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mehir-exports-api-"));
  db = openDataDir(dir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  await ensureDemoData({ db: db.prices, registry, dataDir: dir, now: NOW, scale: 0.02, importer: "inline" });
  const exporter = new ExportScheduler({
    dbPath: join(dir, PRICES_FILE),
    exportsDir: join(dir, EXPORTS_DIR),
    keepDays: 30,
    priority: "normal",
    info: (msg) => void logged.push(msg),
    error: (msg, fields) => void logged.push(`${msg} ${JSON.stringify(fields)}`),
  });
  exporter.request();
  await exporter.idle();
  deps = createServices(loadSettings({ MEHIR_RATE_PRO: "100000", MEHIR_RATE_FREE: "100000" }), db, { registry, data: new DataState(db.prices), now: () => NOW, exports: new ExportStore(join(dir, EXPORTS_DIR)) });
  app = createApp(deps);
  pro = newKey(deps, "pro", "live").headers;
}, 120_000);
afterAll(() => {
  db.prices.close();
  db.accounts.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, key = pro) => get(app, path, key);

async function download(path: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers: pro }));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Every page of a paginated API list. */
async function allPages(path: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const { status, body } = await call(`${path}${sep}limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    expect(status).toBe(200);
    out.push(...body.data);
    cursor = body.meta.next_cursor;
  } while (cursor);
  return out;
}

describe("daily exports of the demo data", () => {
  test("the scheduler's worker wrote one export, listed by GET /api/v1/exports/", async () => {
    expect(logged).toEqual(["export: written"]);
    const { status, body, headers } = await call("/api/v1/exports/");
    expect(status).toBe(200);
    expect(ExportsResponse.safeParse(body).success).toBe(true);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ date: "2026-11-22", data_version: deps.data.current.version, source: "demo" });
    expect(body.data[0].files.map((f: any) => f.name)).toEqual(["chains.csv.gz", "stores.csv.gz", "products.csv.gz", "prices.csv.gz", "promotions.csv.gz", "promotion_items.csv.gz"]);
    expect(body.data[0].files[3].url).toBe("/api/v1/exports/2026-11-22/prices.csv.gz");
    expect(body.meta.days_kept).toBe(30);
    expect(headers.get("x-quota-remaining")).toBe("99999");
  });

  test("row counts equal the API's: chains (/chains/), stores (/stores/), products (every chain's catalog), read back from the CSVs", async () => {
    const files = Object.fromEntries((await call("/api/v1/exports/")).body.data[0].files.map((f: any) => [f.name, f]));
    const csv = async (name: string) => {
      const { status, bytes, headers } = await download(`/api/v1/exports/2026-11-22/${name}`);
      expect(status).toBe(200);
      expect(headers.get("content-type")).toBe("application/gzip");
      expect(headers.get("x-checksum-sha256")).toBe(files[name].sha256);
      expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(files[name].sha256);
      const rows = parseCsv(gunzipSync(bytes).toString("utf8"));
      expect(rows[0]).toEqual(files[name].columns);
      expect(rows.length - 1).toBe(files[name].rows);
      return rows.slice(1);
    };

    const chains = await csv("chains.csv.gz");
    const apiChains = (await call("/api/v1/chains/")).body.data;
    expect(chains.length).toBe(apiChains.length);
    expect(chains.map((r) => r[0]).sort()).toEqual(apiChains.map((c: any) => c.chain_id).sort());
    for (const c of apiChains) expect(chains.find((r) => r[0] === c.chain_id)!.slice(4)).toEqual([String(c.store_count), String(c.product_count)]);

    const stores = await csv("stores.csv.gz");
    const apiStores = await allPages("/api/v1/stores/");
    expect(stores.length).toBe(apiStores.length);
    expect(stores.length).toBeGreaterThan(50);
    expect(stores.map((r) => `${r[0]}/${r[1]}`)).toEqual(apiStores.map((s: any) => `${s.chain_id}/${s.store_id}`));

    // A catalog item is its chain's product: a GTIN is one product across chains; a
    // chain-internal code (products.csv names its chain) is that chain's own.
    const products = await csv("products.csv.gz");
    const internal = new Set(products.filter((r) => r[1] !== "").map((r) => `${r[0]}|${r[1]}`));
    const fromCatalogs = new Set<string>();
    for (const chain of apiChains.filter((c: any) => c.product_count > 0)) {
      for (const item of await allPages(`/api/v1/chains/${chain.chain_id}/catalog/`)) {
        const key = `${item.barcode}|${chain.chain_id}`;
        fromCatalogs.add(internal.has(key) ? key : `${item.barcode}|`);
      }
    }
    // Generic products (`g-…`, loose produce grouped across chains) are in no chain's catalog:
    // the catalogs list the chains' own items they group.
    const own = products.filter((r) => !r[0]!.startsWith("g-"));
    expect(own.length).toBe(fromCatalogs.size);
    expect(new Set(own.map((r) => `${r[0]}|${r[1]}`))).toEqual(fromCatalogs);

    const prices = await csv("prices.csv.gz");
    expect(prices.length).toBeGreaterThan(products.length);
    expect(prices.every((r) => /^\d+\.\d{2}$/.test(r[4]!))).toBe(true);
  }, 120_000);

  test("manifest.json downloads too; one call of the quota per file", async () => {
    const before = (await call("/api/v1/exports/")).body.meta.quota_remaining;
    const manifest = await download("/api/v1/exports/2026-11-22/manifest.json");
    expect(manifest.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(manifest.bytes)).date).toBe("2026-11-22");
    expect(manifest.headers.get("x-quota-remaining")).toBe(String(before - 1));
    const file = await download("/api/v1/exports/2026-11-22/chains.csv.gz");
    expect(file.headers.get("x-quota-remaining")).toBe(String(before - 2));
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="mehir-2026-11-22-chains.csv.gz"');
    expect(Buffer.from(file.bytes).equals(readFileSync(join(dir, EXPORTS_DIR, "2026-11-22", "chains.csv.gz")))).toBe(true);
  });

  test("errors: unknown date 404 export_not_found, unknown file 404 naming the files, malformed date 400, below Pro 403", async () => {
    const unknown = await call("/api/v1/exports/2026-11-01/prices.csv.gz");
    expect([unknown.status, unknown.body.code]).toEqual([404, "export_not_found"]);
    const noFile = await call("/api/v1/exports/2026-11-22/secrets.csv.gz");
    expect([noFile.status, noFile.body.code]).toEqual([404, "export_not_found"]);
    expect(noFile.body.detail).toContain("prices.csv.gz");
    const traversal = await call("/api/v1/exports/2026-11-22/..%2Fprices.sqlite");
    expect(traversal.status).toBe(404);
    const bad = await call("/api/v1/exports/yesterday/prices.csv.gz");
    expect([bad.status, bad.body.code, bad.body.param]).toEqual([400, "invalid_parameter", "date"]);
    const free = newKey(deps, "free").headers;
    for (const path of ["/api/v1/exports/", "/api/v1/exports/2026-11-22/prices.csv.gz"]) {
      const res = await call(path, free);
      expect([res.status, res.body.code]).toEqual([403, "plan_upgrade_required"]);
    }
  });
});
