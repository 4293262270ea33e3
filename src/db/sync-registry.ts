import type { Database } from "bun:sqlite";
import { normaliseCode, type Registry } from "../registry.ts";

/**
 * Mirrors the chain registry into the `chains` and `chain_codes` tables (idempotent; run at
 * every start and before every import). Returns slug → chains.id.
 *
 * @example syncRegistry(db, loadRegistry()).get("rami-levy") // → 2
 */
export function syncRegistry(db: Database, registry: Registry): Map<string, number> {
  const upsertChain = db.prepare(
    `INSERT INTO chains (slug, name, name_en) VALUES (?, ?, ?)
     ON CONFLICT (slug) DO UPDATE SET name = excluded.name, name_en = excluded.name_en
     RETURNING id`,
  );
  const upsertCode = db.prepare(
    `INSERT INTO chain_codes (code, chain_id) VALUES (?, ?)
     ON CONFLICT (code) DO UPDATE SET chain_id = excluded.chain_id`,
  );
  const ids = new Map<string, number>();
  db.transaction(() => {
    for (const chain of registry.chains) {
      const { id } = upsertChain.get(chain.slug, chain.name, chain.name_en) as { id: number };
      ids.set(chain.slug, id);
      for (const code of chain.chain_codes) upsertCode.run(normaliseCode(code), id);
    }
  })();
  return ids;
}
