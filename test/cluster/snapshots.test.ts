/**
 * Snapshots from a primary to a replica (src/cluster/), with both servers in this process on
 * loopback: the replica serves what the primary serves, follows an import, refuses a corrupt
 * snapshot while serving the previous one, and resumes a broken download.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/config.ts";
import { openDataDir } from "../../src/db/open.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { SNAPSHOTS_DIR, SnapshotStore, type SnapshotManifest } from "../../src/cluster/snapshot-store.ts";
import { downloadSnapshot, SnapshotRefused } from "../../src/cluster/download-snapshot.ts";
import { sha256File } from "../../src/cluster/snapshot-file.ts";
import { writeSnapshot } from "../../src/cluster/write-snapshot.ts";
import { MAIN, someBarcode, tempRoot, twoDays } from "../helpers/faults/faults.ts";
import { newKey } from "../helpers/keys.ts";

// Starts servers, workers and a `mehir import`: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const SECRET = "cluster-secret-for-tests-0123456789abcdef";
const PLAN = { stores: 4, itemsPerStore: 200, products: 800, chains: 2, promos: true };

let root: string;
let day2: string;
let barcode: string;
let primary: RunningServer;
let replica: RunningServer;
let primaryKey: Record<string, string>;
let replicaKey: Record<string, string>;

function settings(dir: string, extra: Record<string, unknown>) {
  return loadSettings({}, { dataDir: join(root, dir), host: "127.0.0.1", port: 0, metricsAddr: "127.0.0.1:0", exports: false, logLevel: "silent", clusterSecret: SECRET, ratePro: 100_000_000, ...extra });
}

async function get(server: RunningServer, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, { headers });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * Resolves once the replica serves `version` (polling it as its timer would, without waiting for
 * the timer; the primary publishes its snapshot in a worker after it sees the import). The test's
 * timeout bounds the wait.
 */
async function replicaServes(version: number): Promise<boolean> {
  for (;;) {
    await replica.role.follower!.poll();
    if (replica.role.follower!.status.version === version && (await fetch(replica.url + "/readyz")).status === 200) return true;
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  root = tempRoot("cluster-snapshots");
  const days = twoDays(root, PLAN);
  day2 = days.day2;
  const db = openDataDir(join(root, "primary"));
  await importPaths({ db: db.prices, registry: loadRegistry(), paths: [days.day1], origin: "cli", source: "demo" });
  barcode = someBarcode(db.prices);
  db.prices.close();
  db.accounts.close();
  primary = await startServer(settings("primary", { role: "primary" }));
  await primary.role.publisher!.idle();
  replica = await startServer(settings("replica", { role: "replica", primaryUrl: primary.url }));
  primaryKey = newKey(primary.deps, "pro").headers;
  replicaKey = newKey(replica.deps, "pro").headers;
}, 180_000);

afterAll(async () => {
  await replica?.stop();
  await primary?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("a primary and a replica", () => {
  test("the snapshot endpoints answer only the cluster secret, as a path that does not exist otherwise", async () => {
    for (const headers of <Record<string, string>[]>[{}, { authorization: "Bearer wrong" }, { authorization: `Bearer ${SECRET}x` }, { authorization: SECRET }]) {
      const res = await get(primary, "/internal/cluster/snapshot", headers);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    const ok = await get(primary, "/internal/cluster/snapshot", { authorization: `Bearer ${SECRET}` });
    expect(ok.status).toBe(200);
    expect(ok.body.data_version).toBe(1);
    expect(ok.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    // A standalone or replica server has no such endpoint at all.
    expect((await get(replica, "/internal/cluster/snapshot", { authorization: `Bearer ${SECRET}` })).status).toBe(404);
    // Range resumes a download.
    const ranged = await fetch(primary.url + "/internal/cluster/snapshot/1", { headers: { authorization: `Bearer ${SECRET}`, range: "bytes=1000-" } });
    expect(ranged.status).toBe(206);
    expect(Number(ranged.headers.get("content-length"))).toBe(ok.body.size - 1000);
    expect((await ranged.arrayBuffer()).byteLength).toBe(ok.body.size - 1000);
  });

  test("the replica serves the primary's snapshot: ready, same version, same answers", async () => {
    expect(await replicaServes(1)).toBe(true);
    const ready = await get(replica, "/readyz");
    expect(ready.body).toMatchObject({ ready: true, data_version: 1 });
    for (const path of [`/api/v1/prices/?barcode=${barcode}`, "/api/v1/chains/", "/api/v1/stores/?limit=5", `/api/v1/product-search?q=${encodeURIComponent("חלב")}&limit=5`]) {
      const [a, b] = await Promise.all([get(primary, path, primaryKey), get(replica, path, replicaKey)]);
      expect(b.status).toBe(200);
      // Image URLs name the server answering.
      expect(JSON.stringify(b.body.data).replaceAll(replica.url, primary.url)).toBe(JSON.stringify(a.body.data));
    }
    const metrics = await (await fetch(replica.metricsUrl!)).text();
    expect(metrics).toContain("mehir_replica_snapshot_version 1\n");
    expect(metrics).toContain("mehir_data_version 1\n");
  });

  test("a replica refuses what only the primary serves (portal, alerts, exports) with 421 primary_only, before any key check", async () => {
    for (const [method, path] of [["GET", "/portal/"], ["POST", "/portal/signin"], ["POST", "/api/v1/alerts"], ["GET", "/api/v1/alerts/alrt_x"], ["GET", "/api/v1/exports/"]] as const) {
      const res = await fetch(replica.url + path, { method, headers: replicaKey });
      expect(res.status).toBe(421);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(((await res.json()) as any).code).toBe("primary_only");
    }
    expect((await fetch(primary.url + "/portal/")).status).toBe(200);
  });

  test("an import on the primary reaches the replica, which answers throughout; cursors of the gone version are invalid_cursor", async () => {
    const first = await get(replica, "/api/v1/stores/?limit=2", replicaKey);
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toBeTruthy();

    const statuses = new Map<number, number>();
    let asking = true;
    // Paced (the rate is not what is tested: unpaced, this process's loop and its in-process servers
    // starve the import on 2 cores).
    const load = (async () => {
      while (asking) {
        const res = await fetch(`${replica.url}/api/v1/prices/?barcode=${barcode}`, { headers: replicaKey });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await Bun.sleep(5);
      }
    })();
    const imported = Bun.spawn([process.execPath, MAIN, "import", day2, "--data-dir", join(root, "primary"), "--source", "demo"], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(imported.stdout).text(), new Response(imported.stderr).text(), imported.exited]);
    expect(code, `${out}\n${err}`).toBe(0);
    expect(await replicaServes(2)).toBe(true);
    asking = false;
    await load;
    expect([...statuses.keys()]).toEqual([200]);

    const [a, b] = await Promise.all([get(primary, `/api/v1/prices/?barcode=${barcode}`, primaryKey), get(replica, `/api/v1/prices/?barcode=${barcode}`, replicaKey)]);
    expect(b.body.data).toEqual(a.body.data);
    const stale = await get(replica, `/api/v1/stores/?limit=2&cursor=${cursor}`, replicaKey);
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe("invalid_cursor");
  }, 180_000);

  test("a corrupt snapshot (wrong hash, or not a database) is refused and the previous one keeps serving", async () => {
    const store = new SnapshotStore(join(root, "primary", SNAPSHOTS_DIR));
    const good = store.latest()!;
    expect(good.data_version).toBe(2);
    const fake = (version: number, bytes: Uint8Array, sha256: string) => {
      const path = store.temporary();
      writeFileSync(path, bytes);
      store.publish(path, { ...good, data_version: version, size: bytes.byteLength, sha256 });
    };
    const bytes = new Uint8Array(readFileSync(store.filePath(2)));
    const flipped = bytes.slice();
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    fake(3, flipped, good.sha256);
    const before = replica.role.follower!.status.refused;
    await replica.role.follower!.poll();
    expect(replica.role.follower!.status.refused).toBe(before + 1);
    expect(replica.role.follower!.status.version).toBe(2);

    store.remove(3);
    const garbage = crypto.getRandomValues(new Uint8Array(64 * 1024));
    const path = store.temporary();
    writeFileSync(path, garbage);
    fake(4, garbage, await sha256File(path));
    rmSync(path);
    await replica.role.follower!.poll();
    expect(replica.role.follower!.status.refused).toBe(before + 2);
    store.remove(4);

    const ready = await get(replica, "/readyz");
    expect(ready.body).toMatchObject({ ready: true, data_version: 2 });
    expect((await get(replica, `/api/v1/prices/?barcode=${barcode}`, replicaKey)).status).toBe(200);
    expect(await (await fetch(replica.metricsUrl!)).text()).toContain(`mehir_replica_snapshots_refused_total ${before + 2}\n`);
  });
});

describe("downloadSnapshot", () => {
  test("resumes a download cut midway with Range, and verifies the result", async () => {
    const dir = join(root, "resume");
    const { manifest } = await writeSnapshot({ pricesPath: join(root, "primary", "prices.sqlite"), snapshotsDir: join(dir, "source"), keep: 1 });
    const source = new SnapshotStore(join(dir, "source"));
    const file = readFileSync(source.filePath(manifest!.data_version));
    const ranges: (string | null)[] = [];
    // Raw HTTP over TCP: the first answer announces the whole file, sends half and closes.
    const server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket, chunk) {
          const range = /^range: *(.+?)\r$/im.exec(chunk.toString())?.[1] ?? null;
          ranges.push(range);
          const start = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
          const body = range ? file.subarray(start) : file.subarray(0, file.length >> 1);
          const status = range ? "206 Partial Content" : "200 OK";
          socket.write(`HTTP/1.1 ${status}\r\ncontent-length: ${file.length - start}\r\nconnection: close\r\n\r\n`);
          socket.write(body);
          socket.end();
        },
      },
    });
    try {
      const target = new SnapshotStore(join(dir, "target"));
      const db = await downloadSnapshot({ primary: { url: `http://127.0.0.1:${server.port}`, secret: SECRET }, manifest: manifest!, store: target, retryDelayMs: 10 });
      db.close();
      expect(ranges[0]).toBeNull();
      expect(ranges.at(-1)).toMatch(/^bytes=\d+-$/);
      expect(await sha256File(target.filePath(manifest!.data_version))).toBe(manifest!.sha256);
    } finally {
      server.stop(true);
    }
  });

  test("refuses a snapshot over the size limit before downloading, and more bytes than announced", async () => {
    let asked = 0;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (asked++, new Response(new Uint8Array(4096))) });
    const manifest: SnapshotManifest = { data_version: 9, data_updated_at: null, source: "demo", size: 1024, sha256: "0".repeat(64), created_at: new Date().toISOString() };
    const store = new SnapshotStore(join(root, "limits"));
    const primary = { url: `http://127.0.0.1:${server.port}`, secret: SECRET };
    try {
      expect(downloadSnapshot({ primary, manifest, store, maxBytes: 1000 })).rejects.toThrow(SnapshotRefused);
      expect(asked).toBe(0);
      expect(downloadSnapshot({ primary, manifest, store, retryDelayMs: 1 })).rejects.toThrow(/more bytes than the manifest/);
      await Bun.sleep(0);
    } finally {
      server.stop(true);
    }
    expect(store.list()).toEqual([]);
  });
});
