import type { Migration } from "./migrate.ts";

/**
 * Schema of `accounts.sqlite`: accounts, keys, sessions and usage. Kept apart from price data
 * so a data rebuild never touches them. Keys are stored only as SHA-256 hashes.
 */
export const ACCOUNT_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "accounts",
    sql: `
CREATE TABLE accounts (
  id            INTEGER PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT,                     -- argon2id (Bun.password); NULL for operator-made accounts
  plan          TEXT NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'basic', 'pro')),
  created_at    TEXT NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id              INTEGER PRIMARY KEY,
  account_id      INTEGER NOT NULL REFERENCES accounts(id),
  kind            TEXT NOT NULL CHECK (kind IN ('live', 'test', 'publishable')),
  hash            TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the whole key
  prefix          TEXT NOT NULL,          -- e.g. 'sk_live_' + first 4 characters, for display
  last4           TEXT NOT NULL,
  name            TEXT,
  allowed_origins TEXT NOT NULL DEFAULT '[]',  -- JSON array; empty = any origin (publishable only)
  created_at      TEXT NOT NULL,
  revoked_at      TEXT
) STRICT;
CREATE INDEX api_keys_by_account ON api_keys (account_id);

-- Counted calls per subject ('account:<id>' or 'widget:<key id>') per UTC day 'YYYY-MM-DD';
-- the month's figure is the sum of its days.
CREATE TABLE usage_daily (
  subject TEXT NOT NULL,
  day     TEXT NOT NULL,
  count   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (subject, day)
) WITHOUT ROWID, STRICT;

CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  csrf_token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
`,
  },
  {
    version: 2,
    name: "service keys",
    sql: `
-- Keys the service issues to itself, by purpose ('widget-demo': the publishable key the demo page
-- /widget/v1/demo.html embeds). A publishable key is public by nature (it sits in every page that
-- embeds the widget), so its raw text is kept here to put in the page; secret keys never are.
CREATE TABLE service_keys (
  purpose    TEXT PRIMARY KEY,
  key_id     INTEGER NOT NULL REFERENCES api_keys(id),
  raw_key    TEXT NOT NULL CHECK (raw_key LIKE 'pk\\_live\\_%' ESCAPE '\\'),
  created_at TEXT NOT NULL
) STRICT;
`,
  },
];
