import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import { conditionOf, type Condition, type ConditionJson } from "./condition.ts";
import type { AlertState } from "./evaluate.ts";

/** An alert as stored (the sealed secret stays in the database until a delivery needs it). */
export interface Alert {
  id: number;
  publicId: string;
  accountId: number;
  url: string;
  barcode: string;
  chainId: string | null;
  chainIds: string[];
  city: string | null;
  condition: Condition;
  secretLast4: string;
  status: "active" | "disabled";
  disabledAt: number | null;
  disabledReason: string | null;
  failingSince: number | null;
  state: AlertState | null;
  stateVersion: number;
  createdAt: number;
}

interface AlertRow {
  id: number;
  public_id: string;
  account_id: number;
  url: string;
  barcode: string;
  chain_id: string | null;
  chain_ids: string;
  city: string | null;
  condition: string;
  secret_last4: string;
  status: "active" | "disabled";
  disabled_at: number | null;
  disabled_reason: string | null;
  failing_since: number | null;
  state: string | null;
  state_version: number;
  created_at: number;
}

const COLUMNS =
  "id, public_id, account_id, url, barcode, chain_id, chain_ids, city, condition, secret_last4, status, disabled_at, disabled_reason, failing_since, state, state_version, created_at";

function toAlert(r: AlertRow): Alert {
  return {
    id: r.id,
    publicId: r.public_id,
    accountId: r.account_id,
    url: r.url,
    barcode: r.barcode,
    chainId: r.chain_id,
    chainIds: JSON.parse(r.chain_ids) as string[],
    city: r.city,
    condition: conditionOf(JSON.parse(r.condition) as ConditionJson),
    secretLast4: r.secret_last4,
    status: r.status,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    state: r.state === null ? null : (JSON.parse(r.state) as AlertState),
    stateVersion: r.state_version,
    createdAt: r.created_at,
  };
}

export interface NewAlert {
  publicId: string;
  accountId: number;
  url: string;
  barcode: string;
  chainId: string | null;
  chainIds: string[];
  city: string | null;
  condition: ConditionJson;
  secretSealed: Uint8Array;
  secretLast4: string;
  state: AlertState;
  stateVersion: number;
  createdAt: number;
}

/** The alerts table of accounts.sqlite (parameterised SQL only). */
export class AlertStore {
  constructor(private readonly db: Database) {}

  /** Inserts an alert unless the account already has `limit`; null when it has. */
  insert(a: NewAlert, limit: number): Alert | null {
    return this.db.transaction(() => {
      if (this.countFor(a.accountId) >= limit) return null;
      const row = stmt(
        this.db,
        `INSERT INTO alerts (public_id, account_id, url, barcode, chain_id, chain_ids, city, condition, secret_sealed, secret_last4, state, state_version, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      ).get(
        a.publicId,
        a.accountId,
        a.url,
        a.barcode,
        a.chainId,
        JSON.stringify(a.chainIds),
        a.city,
        JSON.stringify(a.condition),
        a.secretSealed,
        a.secretLast4,
        JSON.stringify(a.state),
        a.stateVersion,
        a.createdAt,
      ) as AlertRow;
      return toAlert(row);
    }).immediate();
  }

  countFor(accountId: number): number {
    return (stmt(this.db, "SELECT count(*) AS n FROM alerts WHERE account_id = ?").get(accountId) as { n: number }).n;
  }

  /** An account's alert by public id (another account's is not found). */
  find(accountId: number, publicId: string): Alert | null {
    const row = stmt(this.db, `SELECT ${COLUMNS} FROM alerts WHERE public_id = ? AND account_id = ?`).get(publicId, accountId) as AlertRow | null;
    return row ? toAlert(row) : null;
  }

  byId(id: number): Alert | null {
    const row = stmt(this.db, `SELECT ${COLUMNS} FROM alerts WHERE id = ?`).get(id) as AlertRow | null;
    return row ? toAlert(row) : null;
  }

  /** An account's alerts, newest first, after the alert with row id `before` (a page). */
  page(accountId: number, limit: number, before: number | null): Alert[] {
    const rows = stmt(this.db, `SELECT ${COLUMNS} FROM alerts WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`).all(
      accountId,
      before ?? Number.MAX_SAFE_INTEGER,
      limit,
    ) as AlertRow[];
    return rows.map(toAlert);
  }

  /** Active alerts not yet evaluated at `version`, in id order, after `afterId` (a batch). */
  behind(version: number, afterId: number, limit: number): Alert[] {
    const rows = stmt(this.db, `SELECT ${COLUMNS} FROM alerts WHERE status = 'active' AND state_version < ? AND id > ? ORDER BY id LIMIT ?`).all(
      version,
      afterId,
      limit,
    ) as AlertRow[];
    return rows.map(toAlert);
  }

  sealedSecret(id: number): { publicId: string; sealed: Uint8Array } | null {
    const row = stmt(this.db, "SELECT public_id, secret_sealed FROM alerts WHERE id = ?").get(id) as { public_id: string; secret_sealed: Uint8Array } | null;
    return row ? { publicId: row.public_id, sealed: row.secret_sealed } : null;
  }

  /**
   * Records an evaluation; only when the stored state is older (a concurrent pass at the same or a
   * newer version wins). True when it was recorded.
   */
  saveState(id: number, state: AlertState, version: number): boolean {
    return stmt(this.db, "UPDATE alerts SET state = ?, state_version = ? WHERE id = ? AND state_version < ?").run(JSON.stringify(state), version, id, version).changes === 1;
  }

  delete(accountId: number, publicId: string): boolean {
    return stmt(this.db, "DELETE FROM alerts WHERE public_id = ? AND account_id = ?").run(publicId, accountId).changes === 1;
  }

  /** After a successful delivery: the endpoint works (and a disabled alert is enabled again). */
  markHealthy(id: number): void {
    stmt(this.db, "UPDATE alerts SET failing_since = NULL, status = 'active', disabled_at = NULL, disabled_reason = NULL WHERE id = ?").run(id);
  }

  /** After a failed attempt: when the endpoint started failing (kept from the first failure). */
  markFailing(id: number, at: number): number | null {
    const row = stmt(this.db, "UPDATE alerts SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING failing_since").get(at, id) as {
      failing_since: number;
    } | null;
    return row?.failing_since ?? null;
  }

  disable(id: number, at: number, reason: string): void {
    stmt(this.db, "UPDATE alerts SET status = 'disabled', disabled_at = ?, disabled_reason = ? WHERE id = ? AND status = 'active'").run(at, reason, id);
  }
}
