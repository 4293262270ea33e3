/**
 * A downloaded snapshot is checked (`PRAGMA quick_check`, its data version) in a worker thread: the
 * replica's serving thread keeps answering while a multi-GB file's pages are read.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSnapshotOffThread } from "../../src/cluster/snapshot-check.ts";
import { migrate } from "../../src/db/migrate.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";

const dir = mkdtempSync(join(tmpdir(), "mehir-snapshot-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function snapshotAt(version: number): string {
  const path = join(dir, `v${version}.sqlite`);
  const db = new Database(path, { create: true });
  migrate(db, path, PRICE_MIGRATIONS);
  db.run("INSERT INTO meta VALUES ('data_version', ?), ('source', 'demo')", [String(version)]);
  db.close();
  return path;
}

describe("checkSnapshotOffThread", () => {
  test("passes a sound file holding the expected data version", async () => {
    expect(await checkSnapshotOffThread({ path: snapshotAt(3), expectedVersion: 3 })).toBeUndefined();
  });

  test("refuses another data version, and a file that is not a database, with the reason", async () => {
    const path = snapshotAt(5);
    await expect(checkSnapshotOffThread({ path, expectedVersion: 6 })).rejects.toThrow("holds data version 5, expected 6");
    const garbage = join(dir, "garbage.sqlite");
    writeFileSync(garbage, crypto.getRandomValues(new Uint8Array(64 * 1024)));
    await expect(checkSnapshotOffThread({ path: garbage, expectedVersion: 1 })).rejects.toThrow(/not a database|quick_check/);
  });

  test("runs off the calling thread: the call returns with the check still to come", async () => {
    const checking = checkSnapshotOffThread({ path: snapshotAt(7), expectedVersion: 7 });
    // A check made on this thread would be over when the call returns: its promise already settled.
    expect(Bun.peek.status(checking)).toBe("pending");
    expect(await checking).toBeUndefined();
  });
});
