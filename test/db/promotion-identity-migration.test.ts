import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { migrate } from "../../src/db/migrate.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { promotionIdentity } from "../../src/ingest/load/promotion-identity.ts";

const IDENTITY = PRICE_MIGRATIONS.find((m) => m.name.startsWith("a promotion is its chain, its id"))!;

test("migration 7: promotions keep their ids and links and gain the identity the loader computes; product names gain published_at", () => {
  const db = new Database(":memory:");
  migrate(db, "prices.sqlite", PRICE_MIGRATIONS.filter((m) => m.version < IDENTITY.version));
  db.run("INSERT INTO chains (id, slug, name, name_en) VALUES (1, 'osher-ad', 'אושר עד', 'Osher Ad')");
  db.run(
    `INSERT INTO promotions (id, chain_id, chain_code, promotion_code, description, starts_at, ends_at) VALUES
       (5, 1, '7290103152017', '9001', 'לחמנית 12 ב-10', '2025-03-01T00:00:00+02:00', '2027-01-01T00:00:00+02:00'),
       (6, 1, '7290103152017', '9002', NULL, NULL, NULL)`,
  );
  db.run("INSERT INTO promotion_stores (promotion_id, store_id, list_id) VALUES (5, 10, 1), (6, 10, 2)");
  db.run("INSERT INTO product_names (product_id, chain_id, name) VALUES (3, 1, 'קליק')");

  expect(migrate(db, "prices.sqlite", PRICE_MIGRATIONS)).toBe(PRICE_MIGRATIONS.length - IDENTITY.version + 1);
  const rows = db.query("SELECT id, identity, description, starts_at FROM promotions ORDER BY id").all() as any[];
  expect(rows.map((r) => r.id)).toEqual([5, 6]);
  for (const r of rows) expect(r.identity).toBe(promotionIdentity({ description: r.description, startsAt: r.starts_at }));
  expect(db.query("SELECT count(*) AS n FROM promotion_stores").get()).toEqual({ n: 2 });
  expect(db.query("SELECT name, published_at FROM product_names").all()).toEqual([{ name: "קליק", published_at: null }]);
  // The same id described anew is another row; the same description and start is the same row.
  db.run("INSERT INTO promotions (chain_id, chain_code, promotion_code, identity) VALUES (1, '7290103152017', '9001', 'other')");
  expect(() => db.run("INSERT INTO promotions (chain_id, chain_code, promotion_code, identity) VALUES (1, '7290103152017', '9001', ?)", [rows[0].identity])).toThrow();
  // The old table constraint UNIQUE (chain_code, promotion_code) is gone with the rebuild; the chain's index stays.
  expect((db.query("SELECT name FROM sqlite_master WHERE tbl_name = 'promotions' AND type = 'index' ORDER BY name").all() as any[]).map((r) => r.name)).toEqual([
    "promotions_by_chain",
    "promotions_by_identity",
  ]);
});
