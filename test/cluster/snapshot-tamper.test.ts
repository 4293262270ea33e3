/**
 * Audit F5: a replica swapped in any snapshot whose SHA-256 matched its primary's manifest — one
 * missing a table (then 500s while /readyz said 200), one with a recursive view in place of a
 * table (17.8 s to switch). A fake primary on loopback here serves consistent manifests for
 * tampered copies of a real snapshot; the replica (a real server) refuses each — schema against
 * the code's own, quick_check, the API's probe queries — keeps serving its data, and backs off.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/config.ts";
import { openDataDir } from "../../src/db/open.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { SNAPSHOT_LATEST_PATH, snapshotFilePath } from "../../src/cluster/snapshot-routes.ts";
import { SnapshotStore, type SnapshotManifest } from "../../src/cluster/snapshot-store.ts";
import { sha256File } from "../../src/cluster/snapshot-file.ts";
import { writeSnapshot } from "../../src/cluster/write-snapshot.ts";
import { ReplicaFollower, REFUSED_RETRY_FIRST_MS } from "../../src/cluster/replica-follower.ts";
import type { Timer } from "../../src/lib/backoff.ts";
import { someBarcode, tempRoot, twoDays } from "../helpers/faults/faults.ts";
import { newKey } from "../helpers/keys.ts";

setDefaultTimeout(180_000);

const SECRET = "cluster-secret-for-tests-0123456789abcdef";
let root: string;
let good: { manifest: SnapshotManifest; path: string };
let barcode: string;

/** A primary that serves whatever snapshot the test puts up, counting downloads. */
class FakePrimary {
  current: { manifest: SnapshotManifest; path: string } | null = null;
  downloads = 0;
  readonly server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      if (!this.current) return new Response(null, { status: 503 });
      if (path === SNAPSHOT_LATEST_PATH) return Response.json(this.current.manifest);
      if (path === snapshotFilePath(this.current.manifest.data_version)) {
        this.downloads++;
        return new Response(Bun.file(this.current.path));
      }
      return new Response(null, { status: 404 });
    },
  });
  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }
}

/** A copy of the good snapshot changed by `change`, as data version `version`, with a manifest that matches it. */
async function tampered(version: number, change: (db: Database) => void): Promise<{ manifest: SnapshotManifest; path: string }> {
  const path = join(root, `tampered-${version}.sqlite`);
  copyFileSync(good.path, path);
  const db = new Database(path);
  change(db);
  db.run("UPDATE meta SET value = ? WHERE key = 'data_version'", [String(version)]);
  db.close();
  return { path, manifest: { ...good.manifest, data_version: version, size: statSync(path).size, sha256: await sha256File(path) } };
}

const CASES: [string, (db: Database) => void, RegExp][] = [
  ["a snapshot missing a table", (db) => db.run("DROP TABLE price_current"), /table price_current missing/],
  ["a snapshot with a view added", (db) => db.run("CREATE VIEW cheap AS SELECT * FROM price_current"), /view cheap added/],
  [
    "a snapshot with a trigger added",
    (db) => db.run("CREATE TRIGGER store_guard BEFORE INSERT ON stores BEGIN SELECT RAISE(ABORT, 'x'); END"),
    /trigger store_guard added/,
  ],
  [
    "a recursive view in place of a table",
    (db) => {
      db.run("DROP TABLE chains");
      db.run("CREATE VIEW chains AS WITH RECURSIVE r(id, slug, name, name_en) AS (SELECT 1, 'x', 'x', 'x' UNION ALL SELECT id + 1, slug, name, name_en FROM r) SELECT * FROM r");
    },
    /table chains missing/,
  ],
  // Schema and pages sound, the data not what the API needs: the probe queries refuse it.
  ["a snapshot whose chains sell nothing", (db) => db.run("DELETE FROM chain_products"), /probe: chains have stores but no chain sells a product/],
];

beforeAll(async () => {
  root = tempRoot("snapshot-tamper");
  const { day1 } = twoDays(root, { stores: 3, itemsPerStore: 100, products: 300, chains: 2, promos: false });
  const db = openDataDir(join(root, "primary"));
  await importPaths({ db: db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "demo" });
  barcode = someBarcode(db.prices);
  db.prices.close();
  db.accounts.close();
  const { manifest } = await writeSnapshot({ pricesPath: join(root, "primary", "prices.sqlite"), snapshotsDir: join(root, "published"), keep: 1 });
  good = { manifest: manifest!, path: new SnapshotStore(join(root, "published")).filePath(manifest!.data_version) };
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a replica refuses a tampered snapshot and keeps serving its data", () => {
  let primary: FakePrimary;
  let replica: RunningServer;
  let key: Record<string, string>;

  beforeAll(async () => {
    primary = new FakePrimary();
    primary.current = good;
    replica = await startServer(
      loadSettings({}, { dataDir: join(root, "replica"), host: "127.0.0.1", port: 0, exports: false, logLevel: "silent", clusterSecret: SECRET, role: "replica", primaryUrl: primary.url }),
    );
    while (replica.role.follower!.status.version !== good.manifest.data_version) await replica.role.follower!.poll();
    key = newKey(replica.deps, "pro").headers;
  }, 180_000);

  afterAll(async () => {
    await replica?.stop();
    primary?.server.stop(true);
  });

  let version = 100;
  for (const [name, change, reason] of CASES) {
    test(name, async () => {
      const before = await fetch(`${replica.url}/api/v1/prices/?barcode=${barcode}`, { headers: key }).then((r) => r.json());
      const refused = replica.role.follower!.status.refused;
      primary.current = await tampered(++version, change);
      await replica.role.follower!.poll();
      const status = replica.role.follower!.status;
      expect(status.refused).toBeGreaterThan(refused);
      expect(status.lastRefusal ?? "").toMatch(reason);
      expect(status.version).toBe(good.manifest.data_version);
      const ready = await fetch(`${replica.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, data_version: good.manifest.data_version });
      const after = await fetch(`${replica.url}/api/v1/prices/?barcode=${barcode}`, { headers: key });
      expect(after.status).toBe(200);
      expect(((await after.json()) as { data: unknown }).data).toEqual((before as { data: unknown }).data);
    });
  }
});

test("after a refused snapshot the replica asks again later each time (2 s doubling), and at the poll interval once one is served", async () => {
  const primary = new FakePrimary();
  primary.current = await tampered(200, CASES[0]![1]);
  const delays: number[] = [];
  const timer: Timer = { set: (_run, ms) => delays.push(ms), clear: () => {} };
  const served: number[] = [];
  const errors: Record<string, unknown>[] = [];
  const follower = new ReplicaFollower({
    primary: { url: primary.url, secret: SECRET },
    store: new SnapshotStore(join(root, "backoff-replica")),
    serve: async (db, manifest) => {
      served.push(manifest.data_version);
      db.close();
    },
    pollMs: 1500,
    info: () => {},
    error: (_msg, fields) => errors.push(fields ?? {}),
    timer,
  });
  try {
    for (let i = 0; i < 4; i++) await follower.poll();
    expect(delays).toEqual([REFUSED_RETRY_FIRST_MS, 4000, 8000, 16000]);
    // One download per attempt, one log line per refusal, naming the reason and the wait.
    expect(primary.downloads).toBe(4);
    expect(errors.map((e) => e.retry_in_ms)).toEqual([2000, 4000, 8000, 16000]);
    expect(String(errors[0]!.error)).toMatch(/table price_current missing/);

    primary.current = await tampered(201, () => {});
    await follower.poll();
    expect(served).toEqual([201]);
    expect(delays.at(-1)).toBe(1500);
    primary.current = await tampered(202, CASES[1]![1]);
    await follower.poll();
    expect(delays.at(-1)).toBe(REFUSED_RETRY_FIRST_MS);
  } finally {
    follower.stop();
    primary.server.stop(true);
  }
});
