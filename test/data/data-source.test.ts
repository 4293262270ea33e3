import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DataState, bumpDataVersion } from "../../src/data/data-state.ts";
import { loadRegistry } from "../../src/registry.ts";
import { startDataSource } from "../../src/data/data-source.ts";

const registry = loadRegistry();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup(source: "demo" | "live") {
  const dataDir = mkdtempSync(join(tmpdir(), "mehir-source-"));
  dirs.push(dataDir);
  const db = openMemory();
  syncRegistry(db.prices, registry);
  const data = new DataState(db.prices);
  const logs: string[] = [];
  const fetches: number[] = [];
  const deps = {
    settings: { source, dataDir, fetchAt: "05:30" },
    db,
    registry,
    data,
    info: (msg: string) => void logs.push(msg),
    error: (msg: string) => void logs.push("ERROR " + msg),
    now: () => new Date("2026-11-22T10:00:00Z"),
    demo: { scale: 0.01, importer: "inline" as const },
  };
  return { deps, data, db, logs, fetches };
}

describe("startDataSource, demo mode", () => {
  test("an empty data dir gets the demo imported and the data state follows it", async () => {
    const { deps, data } = setup("demo");
    let fetched = 0;
    const source = startDataSource({ ...deps, fetchLive: async () => void fetched++ });
    expect(data.hasData).toBe(false);
    await source.ready;
    expect(data.hasData).toBe(true);
    expect(data.current.source).toBe("demo");
    expect(fetched).toBe(0);
    source.stop();
  }, 60_000);

  test("the data state follows the demo at its import's commit, before the run's report (not at a later poll)", async () => {
    const { deps, data, logs } = setup("demo");
    const logsAtChange: string[][] = [];
    data.onChange(() => logsAtChange.push([...logs]));
    const source = startDataSource({ ...deps, fetchLive: async () => {} });
    await source.ready;
    expect(logsAtChange).toHaveLength(1);
    expect(logsAtChange[0]).toContain("demo: files written");
    expect(logsAtChange[0]).not.toContain("demo: imported");
    expect(logs).toContain("demo: imported");
    source.stop();
  }, 60_000);

  test("a data dir with data is left alone", async () => {
    const { deps, data, db, logs } = setup("demo");
    bumpDataVersion(db.prices, "2026-11-20T05:00:00+02:00", "live");
    data.refresh();
    const source = startDataSource({ ...deps, fetchLive: async () => {} });
    await source.ready;
    expect(data.current.version).toBe(1);
    expect(logs.some((l) => l.startsWith("demo:"))).toBe(false);
  });
});

describe("startDataSource, live mode", () => {
  test("a first live start fetches at once instead of generating the demo, and schedules the daily run", async () => {
    const { deps, data, logs } = setup("live");
    let fetched = 0;
    const source = startDataSource({ ...deps, fetchLive: async () => void fetched++ });
    await source.ready;
    expect(fetched).toBe(1);
    expect(data.hasData).toBe(false);
    expect(logs).toContain("fetch: daily schedule");
    expect(logs.some((l) => l.startsWith("demo:"))).toBe(false);
    source.stop();
  });

  test("demo data in a live start is replaced: it fetches even when the demo is fresh", async () => {
    const { deps, data, db } = setup("live");
    bumpDataVersion(db.prices, "2026-11-22T11:00:00+02:00", "demo");
    data.refresh();
    let fetched = 0;
    const source = startDataSource({ ...deps, fetchLive: async () => void fetched++ });
    await source.ready;
    expect(fetched).toBe(1);
    source.stop();
  });

  test("fresh live data waits for the daily time; stale live data catches up", async () => {
    const fresh = setup("live");
    bumpDataVersion(fresh.db.prices, "2026-11-22T05:40:00+02:00", "live"); // 6 h before now
    fresh.data.refresh();
    let fetched = 0;
    const a = startDataSource({ ...fresh.deps, fetchLive: async () => void fetched++ });
    await a.ready;
    expect(fetched).toBe(0);
    a.stop();

    const stale = setup("live");
    bumpDataVersion(stale.db.prices, "2026-11-21T05:40:00+02:00", "live"); // 30 h before now
    stale.data.refresh();
    const b = startDataSource({ ...stale.deps, fetchLive: async () => void fetched++ });
    await b.ready;
    expect(fetched).toBe(1);
    b.stop();
  });

  test("a live import is served from its commit, before the fetch run ends (not at a later poll)", async () => {
    const { deps, data, db } = setup("live");
    let versionAtCommit = 0;
    let versionBeforeReturn = 0;
    const source = startDataSource({
      ...deps,
      fetchLive: async (onCommitted) => {
        bumpDataVersion(db.prices, "2026-11-22T11:00:00+02:00", "live"); // what the import worker's commit does
        onCommitted();
        versionAtCommit = data.current.version;
        await Promise.resolve(); // the run's report and checkpoint come after the commit
        versionBeforeReturn = data.current.version;
      },
    });
    await source.ready;
    expect(versionAtCommit).toBe(1);
    expect(versionBeforeReturn).toBe(1);
    expect(data.current.source).toBe("live");
    source.stop();
  });

  test("a failing fetch is logged and the served data stays", async () => {
    const { deps, data, db, logs } = setup("live");
    bumpDataVersion(db.prices, "2026-11-20T05:00:00+02:00", "live");
    data.refresh();
    const source = startDataSource({
      ...deps,
      fetchLive: async () => {
        throw new Error("portal down");
      },
    });
    await source.ready;
    expect(logs).toContain("ERROR fetch: run failed");
    expect(data.current.version).toBe(1);
    source.stop();
  });
});
