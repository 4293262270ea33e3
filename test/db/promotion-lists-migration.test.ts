import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { migrate } from "../../src/db/migrate.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";

const LISTS = PRICE_MIGRATIONS.find((m) => m.name.startsWith("promotion item lists"))!;

test("an existing database upgrades: a promotion repeated under a chain's two codes becomes one, with each code's items as a list", () => {
  const db = new Database(":memory:");
  migrate(db, "prices.sqlite", PRICE_MIGRATIONS.filter((m) => m.version < LISTS.version));
  db.run("INSERT INTO chains (id, slug, name, name_en) VALUES (1, 'victory', 'ויקטורי', 'Victory')");
  db.run("INSERT INTO stores (id, chain_id, chain_code, store_code) VALUES (10, 1, '7290696200003', '1'), (11, 1, '7290058103393', '87'), (12, 1, '7290696200003', '2')");
  db.run(
    `INSERT INTO products (id, scope_chain_id, barcode, barcode_key, name, updated_at) VALUES
       (1, 0, '7290111111112', '7290111111112', 'א', 't'), (2, 0, '7290111111129', '7290111111129', 'ב', 't'), (3, 1, '77', '77', 'ג', 't')`,
  );
  db.run(
    `INSERT INTO promotions (id, chain_id, chain_code, promotion_code, starts_at) VALUES
       (5, 1, '7290696200003', '555', '2026-11-01T00:00:00+02:00'), (6, 1, '7290058103393', '555', '2026-11-01T00:00:00+02:00'), (7, 1, '7290696200003', '777', NULL)`,
  );
  db.run("INSERT INTO promotion_items (promotion_id, product_id, is_gift) VALUES (5, 1, 0), (5, 2, 0), (6, 1, 0), (7, 3, 1)");
  db.run("INSERT INTO promotion_stores (promotion_id, store_id) VALUES (5, 10), (5, 12), (6, 11), (7, 10)");

  expect(migrate(db, "prices.sqlite", PRICE_MIGRATIONS)).toBe(PRICE_MIGRATIONS.length - LISTS.version + 1);
  expect(db.query("SELECT id, promotion_code FROM promotions ORDER BY id").all()).toEqual([
    { id: 5, promotion_code: "555" },
    { id: 7, promotion_code: "777" },
  ]);
  // Each store keeps the items it listed: stores 10 and 12 the two of code …003, store 11 the one of …393.
  const itemsAt = (storeId: number) =>
    (
      db
        .query(
          `SELECT p.barcode_key FROM promotion_stores ps JOIN promotion_items pi ON pi.list_id = ps.list_id JOIN products p ON p.id = pi.product_id
            WHERE ps.store_id = ? AND ps.promotion_id = 5 ORDER BY 1`,
        )
        .all(storeId) as { barcode_key: string }[]
    ).map((r) => r.barcode_key);
  expect(itemsAt(10)).toEqual(["7290111111112", "7290111111129"]);
  expect(itemsAt(12)).toEqual(["7290111111112", "7290111111129"]);
  expect(itemsAt(11)).toEqual(["7290111111112"]);
  expect(db.query("SELECT count(*) AS n FROM promotion_lists WHERE promotion_id = 5").get()).toEqual({ n: 2 });
  // Items keep their identity (code and scope) and gift flag; stores gain the lifecycle columns.
  expect(db.query("SELECT item_key, item_scope, is_gift, product_id FROM promotion_items WHERE promotion_id = 7").all()).toEqual([
    { item_key: "77", item_scope: 1, is_gift: 1, product_id: 3 },
  ]);
  expect(db.query("SELECT closed_at, listed_at FROM stores WHERE id = 10").get()).toEqual({ closed_at: null, listed_at: null });
  // One promotion per chain, id and identity (description and start, migration 7) from now on.
  expect(() => db.run("INSERT INTO promotions (chain_id, chain_code, promotion_code, identity) VALUES (1, '7290058103393', '777', char(31))")).toThrow();
});
