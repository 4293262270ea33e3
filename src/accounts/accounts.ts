import type { Database } from "bun:sqlite";
import type { Plan } from "./plans.ts";
import { toIsraelIso } from "../lib/time.ts";

/** Accounts in `accounts.sqlite`: the operator CLI and the developer portal share these functions. */

export const PLANS: readonly Plan[] = ["free", "basic", "pro"];

export interface Account {
  id: number;
  email: string;
  plan: Plan;
  createdAt: string;
}

interface AccountRow {
  id: number;
  email: string;
  plan: Plan;
  created_at: string;
  password_hash: string | null;
}

const EMAIL = /^[^\s@<>"'`]{1,64}@[^\s@<>"'`]{1,190}\.[^\s@<>"'`]{2,}$/;

export class AccountError extends Error {
  override name = "AccountError";
}

/** Trimmed and lower-cased; throws AccountError when it does not look like an address. */
export function normaliseEmail(text: string): string {
  const email = text.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw new AccountError(`not an email address: ${JSON.stringify(text.slice(0, 80))}`);
  return email;
}

export function isPlan(text: string): text is Plan {
  return (PLANS as readonly string[]).includes(text);
}

function toAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, plan: row.plan, createdAt: row.created_at };
}

/** Creates an account; throws AccountError when the email is taken. */
export function createAccount(db: Database, input: { email: string; plan?: Plan; passwordHash?: string | null }, now: Date): Account {
  const email = normaliseEmail(input.email);
  const plan = input.plan ?? "free";
  if (!isPlan(plan)) throw new AccountError(`unknown plan ${JSON.stringify(plan)} (free, basic or pro)`);
  const row = db
    .query("INSERT INTO accounts (email, password_hash, plan, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING RETURNING *")
    .get(email, input.passwordHash ?? null, plan, toIsraelIso(now)) as AccountRow | null;
  if (!row) throw new AccountError(`an account for ${email} already exists`);
  return toAccount(row);
}

export function findAccountByEmail(db: Database, email: string): (Account & { passwordHash: string | null }) | null {
  const row = db.query("SELECT * FROM accounts WHERE email = ?").get(email.trim().toLowerCase()) as AccountRow | null;
  return row ? { ...toAccount(row), passwordHash: row.password_hash } : null;
}

export function findAccountById(db: Database, id: number): Account | null {
  const row = db.query("SELECT * FROM accounts WHERE id = ?").get(id) as AccountRow | null;
  return row ? toAccount(row) : null;
}

/** Sets an account's plan; throws AccountError for an unknown account or plan. */
export function setPlan(db: Database, email: string, plan: string): Account {
  if (!isPlan(plan)) throw new AccountError(`unknown plan ${JSON.stringify(plan)} (free, basic or pro)`);
  const row = db.query("UPDATE accounts SET plan = ? WHERE email = ? RETURNING *").get(plan, email.trim().toLowerCase()) as AccountRow | null;
  if (!row) throw new AccountError(`no account for ${email}`);
  return toAccount(row);
}

/** Replaces an account's portal password hash; throws AccountError for an unknown account. */
export function setPasswordHash(db: Database, email: string, passwordHash: string): Account {
  const row = db.query("UPDATE accounts SET password_hash = ? WHERE email = ? RETURNING *").get(passwordHash, email.trim().toLowerCase()) as AccountRow | null;
  if (!row) throw new AccountError(`no account for ${email}`);
  return toAccount(row);
}

/** Every account with its number of active keys, oldest first. */
export function listAccounts(db: Database): (Account & { activeKeys: number })[] {
  const rows = db
    .query(
      `SELECT a.*, (SELECT count(*) FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL) AS active_keys
       FROM accounts a ORDER BY a.id`,
    )
    .all() as (AccountRow & { active_keys: number })[];
  return rows.map((r) => ({ ...toAccount(r), activeKeys: r.active_keys }));
}
