import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { rmSync } from "node:fs";
import { createApp } from "../../../src/app.ts";
import { createServices, type Services } from "../../../src/services.ts";
import { loadSettings } from "../../../src/config.ts";
import { DataState } from "../../../src/data/data-state.ts";
import { openDataDir, type Databases } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { ensureDemoData } from "../../../src/demo/first-start.ts";
import { fetchAndImport, FetchImportError } from "../../../src/ingest/sources/fetch-and-import.ts";
import { runImportInWorker } from "../../../src/ingest/run/run-in-worker.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { newKey } from "../../helpers/keys.ts";
import { FAST_HTTP, bytesResponse, htmlResponse, jsonResponse, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

// End to end on a real data dir: demo first start, then a live fetch of one chain from a fake
// Bina portal, imported in the worker — the API must then show live data only, never mixed.
const KS = "7290058108879";
const DAY = "2026-11-22";
const NOW = new Date("2026-11-22T08:00:00Z");
const registry = loadRegistry();
const enc = new TextEncoder();

let sharedBarcode = "";
const storesXml = () =>
  enc.encode(
    `<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${KS}</ChainId><ChainName>קינג סטור</ChainName><SubChains><SubChain><SubChainId>1</SubChainId><Stores>` +
      `<Store><StoreId>28</StoreId><BikoretNo>1</BikoretNo><StoreType>1</StoreType><StoreName>קינג סטור סכנין</StoreName><Address>הרצל 1</Address><City>סכנין</City><ZipCode>0</ZipCode></Store>` +
      `</Stores></SubChain></SubChains></Root>`,
  );
const priceXml = () =>
  enc.encode(
    `<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${KS}</ChainId><SubChainId>1</SubChainId><StoreId>28</StoreId><BikoretNo>1</BikoretNo><Items>` +
      `<Item><PriceUpdateDate>2026-11-22 05:00</PriceUpdateDate><ItemCode>${sharedBarcode || "7290000000017"}</ItemCode><ItemType>1</ItemType><ItemNm>מוצר חי</ItemNm><ManufacturerName>יצרן</ManufacturerName><ManufactureCountry>IL</ManufactureCountry><ManufacturerItemDescription>x</ManufacturerItemDescription><UnitQty>ליטר</UnitQty><Quantity>1</Quantity><bIsWeighted>0</bIsWeighted><UnitOfMeasure>ליטר</UnitOfMeasure><QtyInPackage>1</QtyInPackage><ItemPrice>4.37</ItemPrice><UnitOfMeasurePrice>4.37</UnitOfMeasurePrice><AllowDiscount>1</AllowDiscount><ItemStatus>1</ItemStatus></Item>` +
      `</Items></Root>`,
  );

function binaPortal() {
  const files: Record<string, () => Uint8Array> = {
    [`Stores${KS}-000-202611220500.gz`]: () => Bun.gzipSync(storesXml()),
    [`PriceFull${KS}-028-202611220600.gz`]: () => Bun.gzipSync(priceXml()),
  };
  const byType: Record<string, string> = { "1": `Stores${KS}-000-202611220500.gz`, "4": `PriceFull${KS}-028-202611220600.gz` };
  return startFakePortal((_req, url, body) => {
    if (url.pathname === "/MainIO_Hok.aspx") {
      const name = byType[new URLSearchParams(body).get("WFileType") ?? ""];
      return jsonResponse(name ? [{ FileNm: name, Store: "28", DateFile: "06:00 22/11/2026" }] : []);
    }
    if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: `/blobs/${url.searchParams.get("FileNm")}` }]);
    const blob = files[decodeURIComponent(url.pathname.slice("/blobs/".length))];
    return blob ? bytesResponse(blob()) : htmlResponse("not found", 404);
  });
}

describe("fetchAndImport after a demo first start", () => {
  let dataDir: string;
  let db: Databases;
  let deps: Services;
  let portal: ReturnType<typeof startFakePortal>;
  const quiet = () => {};

  beforeAll(async () => {
    dataDir = tempDir();
    db = openDataDir(dataDir);
    syncRegistry(db.prices, registry);
    await ensureDemoData({ db: db.prices, registry, dataDir, now: NOW, scale: 0.02, importer: "inline" });
    // A barcode the demo sells in several chains, King Store among them.
    sharedBarcode = (
      db.prices
        .query(
          `SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id JOIN stores s ON s.id = pc.store_id
            WHERE p.scope_chain_id = 0 GROUP BY p.id HAVING count(DISTINCT s.chain_id) >= 3 ORDER BY p.barcode LIMIT 1`,
        )
        .get() as { barcode: string }
    ).barcode;
    portal = binaPortal();
    deps = createServices(loadSettings({}), db, { registry, data: new DataState(db.prices), now: () => NOW });
  }, 60_000);
  afterAll(() => {
    portal?.stop();
    deps?.search.stop();
    db?.prices.close();
    db?.accounts.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the live import replaces the demo data: only the fetched chain's data, source live", async () => {
    const app = createApp(deps);
    const headers = newKey(deps, "pro", "live").headers;
    const before = await (await app.handle(new Request(`http://localhost/api/v1/prices/?barcode=${sharedBarcode}`, { headers }))).json();
    expect(before.data.prices.length).toBeGreaterThanOrEqual(3);
    const committed: number[] = [];

    const result = await fetchAndImport({
      db: db.prices,
      registry,
      dataDir,
      importPriority: "normal",
      chains: ["king-store"],
      date: DAY,
      sourcesOverride: { "king-store": { base_url: portal.url } },
      http: FAST_HTTP,
      now: () => NOW,
      log: quiet,
      onCommitted: (version) => void committed.push(version),
    });
    expect(result.fetch.chains.map((c) => [c.slug, c.status, c.downloaded.length])).toEqual([["king-store", "ok", 2]]);
    expect(result.import).toMatchObject({ origin: "fetch", source: "live", status: "ok", replaced: true });
    // Told of the commit once, with the version the run reports.
    expect(committed).toEqual([result.import!.dataVersion!]);
    expect(result.import!.totals.rejected).toBe(0);
    deps.data.refresh();
    expect(deps.data.current.source).toBe("live");

    const chains = (await (await app.handle(new Request("http://localhost/api/v1/chains/", { headers }))).json()).data as Record<string, unknown>[];
    const withData = chains.filter((c) => c.status !== "no_data");
    expect(withData.map((c) => c.chain_id)).toEqual(["king-store"]);
    expect(withData[0]).toMatchObject({ source: "live", store_count: 1, product_count: 1, last_updated_at: "2026-11-22T06:00:00+02:00" });
    expect(chains.filter((c) => c.chain_id !== "king-store").every((c) => c.source === "none" && c.product_count === 0)).toBe(true);

    const prices = await (await app.handle(new Request(`http://localhost/api/v1/prices/?barcode=${sharedBarcode}`, { headers }))).json();
    expect(prices.data.prices.map((e: { chain_id: string }) => e.chain_id)).toEqual(["king-store"]);
    expect(prices.data.prices[0].price_ils).toBe("4.37");
  });

  test("a second run downloads nothing new and imports nothing", async () => {
    const again = await fetchAndImport({
      db: db.prices,
      registry,
      dataDir,
      importPriority: "normal",
      chains: ["king-store"],
      date: DAY,
      sourcesOverride: { "king-store": { base_url: portal.url } },
      http: FAST_HTTP,
      now: () => NOW,
      log: quiet,
    });
    expect(again.fetch.chains[0]).toMatchObject({ status: "ok", alreadyFetched: 2, downloaded: [] });
    expect(again.import).toBeUndefined();
  });
});

describe("fetchAndImport bookkeeping", () => {
  test("files the import could not load are fetched again next time; a failed import forgets the whole run", async () => {
    const dataDir = tempDir();
    const db = openDataDir(dataDir);
    try {
      syncRegistry(db.prices, registry);
      const portal = binaPortal();
      try {
        const options = {
          db: db.prices,
          registry,
          dataDir,
          importPriority: "normal" as const,
          chains: ["king-store"],
          date: DAY,
          sourcesOverride: { "king-store": { base_url: portal.url } },
          http: FAST_HTTP,
          now: () => NOW,
          log: () => {},
        };
        // The worker crashing: nothing is recorded as fetched.
        const crash: typeof runImportInWorker = async () => {
          throw new Error("import worker: out of memory");
        };
        await expect(fetchAndImport({ ...options, runImport: crash })).rejects.toBeInstanceOf(FetchImportError);
        expect((db.prices.query("SELECT count(*) AS n FROM fetched_files").get() as { n: number }).n).toBe(0);
        // A run where the import rejected one file: only that file is forgotten.
        const oneRejected: typeof runImportInWorker = async (request) => {
          const real = await runImportInWorker(request);
          return { ...real, files: real.files.map((f) => (f.type === "stores" ? { ...f, status: "rejected" as const } : f)) };
        };
        const third = await fetchAndImport({ ...options, runImport: oneRejected });
        expect(third.fetch.chains[0]!.downloaded).toHaveLength(2);
        expect(db.prices.query("SELECT file_name FROM fetched_files").all()).toEqual([{ file_name: `PriceFull${KS}-028-202611220600.gz` }]);
        const fourth = await fetchAndImport(options);
        expect(fourth.fetch.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([`Stores${KS}-000-202611220500.gz`]);
      } finally {
        portal.stop();
      }
    } finally {
      db.prices.close();
      db.accounts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("fetchAndImport health", () => {
  test("a fetched file that parsed to zero rows or was rejected is the chain's error, logged", async () => {
    const dataDir = tempDir();
    const db = openDataDir(dataDir);
    const names = { stores: `Stores${KS}-000-202611220500.gz`, price: `PriceFull${KS}-028-202611220600.xml`, promo: `PromoFull${KS}-028-202611220600.gz` };
    const files: Record<string, Uint8Array> = {
      [names.stores]: Bun.gzipSync(storesXml()),
      // Well-formed, over a kilobyte, no items.
      [names.price]: enc.encode(`<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${KS}</ChainId><StoreId>28</StoreId><!-- ${"x".repeat(2000)} --><Items Count="0"></Items></Root>`),
      [names.promo]: Bun.gzipSync(enc.encode("this is not XML at all")),
    };
    const types: Record<string, string> = { "1": names.stores, "4": names.price, "5": names.promo };
    const portal = startFakePortal((_req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx") {
        const name = types[new URLSearchParams(body).get("WFileType") ?? ""];
        return jsonResponse(name ? [{ FileNm: name }] : []);
      }
      if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: `/blobs/${url.searchParams.get("FileNm")}` }]);
      const blob = files[decodeURIComponent(url.pathname.slice("/blobs/".length))];
      return blob ? bytesResponse(blob) : htmlResponse("not found", 404);
    });
    const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    try {
      syncRegistry(db.prices, registry);
      const result = await fetchAndImport({
        db: db.prices,
        registry,
        dataDir,
        importPriority: "normal",
        chains: ["king-store"],
        date: DAY,
        sourcesOverride: { "king-store": { base_url: portal.url } },
        http: FAST_HTTP,
        now: () => NOW,
        log: (level, msg, fields) => void logs.push({ level, msg, fields }),
      });
      expect(result.fetch.chains[0]!.status).toBe("ok");
      const health = db.prices.query("SELECT last_error, zero_rows FROM chain_health WHERE chain_slug = 'king-store'").get() as { last_error: string; zero_rows: number };
      expect(health.zero_rows).toBe(1);
      expect(health.last_error).toContain(`${names.price} parsed to 0 rows`);
      expect(health.last_error).toContain(`${names.promo} rejected by the import`);
      const warning = logs.find((l) => l.msg === "fetch: imported with problems")!;
      expect(warning).toMatchObject({ level: "warn", fields: { chain: "king-store", files: 2 } });
      // The rejected file is fetched again next time; the zero-row one was loaded as published.
      expect((db.prices.query("SELECT file_name FROM fetched_files ORDER BY file_name").all() as { file_name: string }[]).map((r) => r.file_name)).toEqual([names.price, names.stores]);
    } finally {
      portal.stop();
      db.prices.close();
      db.accounts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("fetchAndImport when a chain fails", () => {
  test("the failing chain keeps its previous data and says why; the others are updated", async () => {
    const dataDir = tempDir();
    const db = openDataDir(dataDir);
    const MA = "7290058159628";
    /** A Bina portal publishing one store's Stores + PriceFull for any day asked, at `price`. */
    const portalOf = (code: string, price: () => string, up: () => boolean) =>
      startFakePortal((_req, url, body) => {
        if (!up()) return htmlResponse("Service Unavailable", 500);
        const form = new URLSearchParams(body);
        const [d, m, y] = (form.get("WDate") ?? "").split("/");
        const stamp = `${y}${m}${d}0600`;
        if (url.pathname === "/MainIO_Hok.aspx") {
          const type = form.get("WFileType");
          return jsonResponse(type === "1" ? [{ FileNm: `Stores${code}-000-${stamp}.gz` }] : type === "4" ? [{ FileNm: `PriceFull${code}-001-${stamp}.gz` }] : []);
        }
        if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: `/blobs/${url.searchParams.get("FileNm")}` }]);
        const name = decodeURIComponent(url.pathname.slice("/blobs/".length));
        const xml = name.startsWith("Stores")
          ? `<Root><ChainId>${code}</ChainId><SubChains><SubChain><SubChainId>1</SubChainId><Stores><Store><StoreId>1</StoreId><StoreName>סניף</StoreName><City>חיפה</City></Store></Stores></SubChain></SubChains></Root>`
          : `<Root><ChainId>${code}</ChainId><StoreId>1</StoreId><Items>${"<Item><ItemCode>7290000000015</ItemCode><ItemType>1</ItemType><ItemName>מוצר</ItemName><ItemPrice>" + price() + "</ItemPrice></Item>"}</Items></Root>`;
        return bytesResponse(Bun.gzipSync(enc.encode(xml)));
      });
    let kingUp = true;
    let maayanPrice = "5.00";
    const king = portalOf(KS, () => "4.00", () => kingUp);
    const maayan = portalOf(MA, () => maayanPrice, () => true);
    try {
      syncRegistry(db.prices, registry);
      const run = (date: string, at: string) =>
        fetchAndImport({
          db: db.prices,
          registry,
          dataDir,
          importPriority: "normal",
          chains: ["king-store", "maayan-2000"],
          date,
          sourcesOverride: { "king-store": { base_url: king.url }, "maayan-2000": { base_url: maayan.url } },
          http: { ...FAST_HTTP, retries: 0 },
          now: () => new Date(at),
          log: () => {},
        });
      await run("2026-11-22", "2026-11-22T06:00:00+02:00");
      kingUp = false;
      maayanPrice = "5.50";
      const second = await run("2026-11-23", "2026-11-23T06:00:00+02:00");
      expect(second.fetch.chains.map((c) => [c.slug, c.status])).toEqual([["king-store", "failed"], ["maayan-2000", "ok"]]);
      expect(second.import?.status).toBe("ok");

      const deps = createServices(loadSettings({}), db, { registry, data: new DataState(db.prices), now: () => new Date("2026-11-23T07:00:00+02:00") });
      const app = createApp(deps);
      const headers = newKey(deps, "pro", "live").headers;
      await deps.search.settled(); // its first build, before the database closes
      const chains = (await (await app.handle(new Request("http://localhost/api/v1/chains/", { headers }))).json()).data as Record<string, unknown>[];
      // Its data stays served; its status says the portal is failing, and why (issue 40).
      expect(chains.find((c) => c.chain_id === "king-store")).toMatchObject({
        status: "failing",
        source: "live",
        product_count: 1,
        last_updated_at: "2026-11-22T06:00:00+02:00",
        last_fetch_attempt_at: "2026-11-23T06:00:00+02:00",
      });
      expect(String(chains.find((c) => c.chain_id === "king-store")!.last_fetch_error)).toContain("HTTP 500");
      expect(chains.find((c) => c.chain_id === "maayan-2000")).toMatchObject({ status: "ok", last_updated_at: "2026-11-23T06:00:00+02:00", last_fetch_error: null });
      const prices = (await (await app.handle(new Request("http://localhost/api/v1/prices/?barcode=7290000000015", { headers }))).json()).data.prices as { chain_id: string; price_ils: string }[];
      expect(Object.fromEntries(prices.map((p) => [p.chain_id, p.price_ils]))).toEqual({ "king-store": "4.00", "maayan-2000": "5.50" });
    } finally {
      king.stop();
      maayan.stop();
      db.prices.close();
      db.accounts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("health fields are the fetch's", () => {
  test("a plain import sets no fetch success; a fetch's success time stays the fetch's", async () => {
    const dataDir = tempDir();
    const db = openDataDir(dataDir);
    const portal = binaPortal();
    try {
      syncRegistry(db.prices, registry);
      const { importPaths } = await import("../../../src/ingest/run/import.ts");
      const dir = tempDir();
      const file = `${dir}/PriceFull${KS}-028-202611220600.gz`;
      await Bun.write(file, Bun.gzipSync(priceXml()));
      await importPaths({ db: db.prices, registry, paths: [file], origin: "cli", source: "live", classify: null });
      const afterImport = db.prices.query("SELECT last_success_at FROM chain_health WHERE chain_slug = 'king-store'").get() as { last_success_at: string | null } | null;
      expect(afterImport?.last_success_at ?? null).toBeNull();
      await fetchAndImport({ db: db.prices, registry, dataDir, importPriority: "normal", chains: ["king-store"], date: DAY, sourcesOverride: { "king-store": { base_url: portal.url } }, http: FAST_HTTP, now: () => NOW, log: () => {} });
      expect(db.prices.query("SELECT last_success_at FROM chain_health WHERE chain_slug = 'king-store'").get()).toEqual({ last_success_at: "2026-11-22T10:00:00+02:00" });
    } finally {
      portal.stop();
      db.prices.close();
      db.accounts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("download retention", () => {
  test("day folders older than the kept days are removed, newer ones and other files stay; old fetched rows are forgotten", async () => {
    const { pruneDownloads } = await import("../../../src/ingest/sources/retention.ts");
    const { mkdirSync, existsSync, writeFileSync } = await import("node:fs");
    const dataDir = tempDir();
    const db = openDataDir(dataDir);
    try {
      for (const day of ["2026-11-10", "2026-11-14", "2026-11-15", "2026-11-22"]) {
        mkdirSync(`${dataDir}/downloads/shufersal/${day}`, { recursive: true });
        writeFileSync(`${dataDir}/downloads/shufersal/${day}/PriceFull.gz`, "x");
      }
      mkdirSync(`${dataDir}/downloads/shufersal/notes`, { recursive: true });
      const insert = db.prices.prepare("INSERT INTO fetched_files (chain_slug, file_name, bytes, fetched_at) VALUES ('shufersal', ?, 1, ?)");
      insert.run("old", "2026-09-01T05:30:00+03:00");
      insert.run("recent", "2026-11-20T05:30:00+02:00");
      const removed = await pruneDownloads({ db: db.prices, dataDir, today: "2026-11-22", keepDays: 7 });
      expect(removed.map((p) => p.split("/").pop()).sort()).toEqual(["2026-11-10", "2026-11-14"]);
      expect(existsSync(`${dataDir}/downloads/shufersal/2026-11-15/PriceFull.gz`)).toBe(true);
      expect(existsSync(`${dataDir}/downloads/shufersal/notes`)).toBe(true);
      expect(db.prices.query("SELECT file_name FROM fetched_files").all()).toEqual([{ file_name: "recent" }]);
      // No downloads folder at all is fine.
      expect(await pruneDownloads({ db: db.prices, dataDir: tempDir(), today: "2026-11-22" })).toEqual([]);
    } finally {
      db.prices.close();
      db.accounts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("one fetch at a time per data dir", () => {
  test("a second run while one holds the lock is refused; a lock left by a dead process is taken over", async () => {
    const { acquireFetchLock, FetchBusyError } = await import("../../../src/ingest/sources/fetch-lock.ts");
    const { writeFileSync } = await import("node:fs");
    const dataDir = tempDir();
    const release = acquireFetchLock(dataDir);
    expect(() => acquireFetchLock(dataDir)).toThrow(FetchBusyError);
    const db = openDataDir(dataDir);
    try {
      await expect(fetchAndImport({ db: db.prices, registry, dataDir, importPriority: "normal", chains: ["king-store"], date: DAY, http: FAST_HTTP, log: () => {} })).rejects.toBeInstanceOf(FetchBusyError);
      release();
      // A dead holder (no such process id).
      writeFileSync(`${dataDir}/downloads/.fetch.lock`, "2147483646");
      const again = acquireFetchLock(dataDir);
      again();
    } finally {
      db.prices.close();
      db.accounts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
