import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";

export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface Delivery {
  id: number;
  eventId: string;
  alertId: number;
  isTest: boolean;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  lastAttemptAt: number | null;
  nextAttemptAt: number | null;
  completedAt: number | null;
}

interface DeliveryRow {
  id: number;
  event_id: string;
  alert_id: number;
  is_test: number;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  completed_at: number | null;
}

const COLUMNS =
  "id, event_id, alert_id, is_test, payload, status, attempts, last_status_code, last_error, created_at, last_attempt_at, next_attempt_at, completed_at";

function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    eventId: r.event_id,
    alertId: r.alert_id,
    isTest: r.is_test === 1,
    payload: r.payload,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at,
    lastAttemptAt: r.last_attempt_at,
    nextAttemptAt: r.next_attempt_at,
    completedAt: r.completed_at,
  };
}

/** The alert_deliveries table: the persisted queue and log of webhook events. */
export class DeliveryStore {
  constructor(private readonly db: Database) {}

  /** Queues an event, due at `at`. */
  insert(d: { eventId: string; alertId: number; isTest: boolean; payload: string; at: number }): Delivery {
    const row = stmt(
      this.db,
      `INSERT INTO alert_deliveries (event_id, alert_id, is_test, payload, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    ).get(d.eventId, d.alertId, d.isTest ? 1 : 0, d.payload, d.at, d.at) as DeliveryRow;
    return toDelivery(row);
  }

  byId(id: number): Delivery | null {
    const row = stmt(this.db, `SELECT ${COLUMNS} FROM alert_deliveries WHERE id = ?`).get(id) as DeliveryRow | null;
    return row ? toDelivery(row) : null;
  }

  /** Pending deliveries due by `at`, oldest due first. */
  due(at: number, limit: number): Delivery[] {
    const rows = stmt(
      this.db,
      `SELECT ${COLUMNS} FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
    ).all(at, limit) as DeliveryRow[];
    return rows.map(toDelivery);
  }

  /** The `limit` pending deliveries due first, with when they are due. */
  upcoming(limit: number): { id: number; at: number }[] {
    return stmt(this.db, "SELECT id, next_attempt_at AS at FROM alert_deliveries WHERE status = 'pending' ORDER BY next_attempt_at, id LIMIT ?").all(limit) as {
      id: number;
      at: number;
    }[];
  }

  /** Records a 2xx: the delivery is done and never sent again. */
  succeeded(id: number, at: number, status: number): void {
    stmt(
      this.db,
      `UPDATE alert_deliveries SET status = 'succeeded', attempts = attempts + 1, last_status_code = ?, last_error = NULL,
              last_attempt_at = ?, next_attempt_at = NULL, completed_at = ? WHERE id = ? AND status = 'pending'`,
    ).run(status, at, at, id);
  }

  /** Records a failed attempt; `nextAt` null marks the delivery failed for good. */
  attemptFailed(id: number, at: number, status: number | null, error: string | null, nextAt: number | null): void {
    stmt(
      this.db,
      `UPDATE alert_deliveries SET attempts = attempts + 1, last_status_code = ?, last_error = ?, last_attempt_at = ?,
              next_attempt_at = ?, status = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END,
              completed_at = CASE WHEN ? IS NULL THEN ? ELSE NULL END
        WHERE id = ? AND status = 'pending'`,
    ).run(status, error, at, nextAt, nextAt, nextAt, at, id);
  }

  /** Gives up on an alert's pending deliveries (its endpoint was disabled). */
  failPending(alertId: number, at: number, reason: string): void {
    stmt(
      this.db,
      `UPDATE alert_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL, completed_at = ?
        WHERE alert_id = ? AND status = 'pending'`,
    ).run(reason, at, alertId);
  }

  /** An alert's deliveries, newest first, after row id `before` (a page). */
  page(alertId: number, limit: number, before: number | null): Delivery[] {
    const rows = stmt(this.db, `SELECT ${COLUMNS} FROM alert_deliveries WHERE alert_id = ? AND id < ? ORDER BY id DESC LIMIT ?`).all(
      alertId,
      before ?? Number.MAX_SAFE_INTEGER,
      limit,
    ) as DeliveryRow[];
    return rows.map(toDelivery);
  }
}
