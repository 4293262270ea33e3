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
  {
    version: 3,
    name: "price alerts",
    sql: `
-- Price alerts (POST /api/v1/alerts/): a product, optional chain/city scope, a condition and the
-- webhook URL. The signing secret must be usable to sign, so it is sealed (AES-256-GCM under the
-- key file beside this database, see src/alerts/secret-box.ts), never stored in the clear.
-- state: the evaluation state (JSON) at data version state_version (see src/alerts/conditions.ts).
CREATE TABLE alerts (
  id              INTEGER PRIMARY KEY,
  public_id       TEXT NOT NULL UNIQUE,          -- 'alrt_' + 24 base62 characters
  account_id      INTEGER NOT NULL REFERENCES accounts(id),
  url             TEXT NOT NULL,
  barcode         TEXT NOT NULL,
  chain_id        TEXT,                          -- the chain of a chain-internal code
  chain_ids       TEXT NOT NULL DEFAULT '[]',    -- JSON array of chain slugs; empty = every chain
  city            TEXT,                          -- canonical city name; NULL = everywhere
  condition       TEXT NOT NULL,                 -- JSON: {"below_ils":"9.90"} | {"drop_pct":10} | {"promotion":true}
  secret_sealed   BLOB NOT NULL,
  secret_last4    TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_at     INTEGER,                       -- ms since the epoch
  disabled_reason TEXT,
  failing_since   INTEGER,                       -- ms: first failed attempt since the last success
  state           TEXT,
  state_version   INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX alerts_by_account ON alerts (account_id, id);

-- One row per event to deliver; the payload is kept byte for byte so every attempt sends the
-- same body. next_attempt_at is set only while pending.
CREATE TABLE alert_deliveries (
  id               INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL UNIQUE,         -- 'evt_' + 24 base62 characters
  alert_id         INTEGER NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  is_test          INTEGER NOT NULL DEFAULT 0,
  payload          TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error       TEXT,
  created_at       INTEGER NOT NULL,             -- ms since the epoch, like every time below
  last_attempt_at  INTEGER,
  next_attempt_at  INTEGER,
  completed_at     INTEGER
) STRICT;
CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_by_alert ON alert_deliveries (alert_id, id);
`,
  },
  {
    version: 4,
    name: "portal form tokens",
    sql: `
-- Single-use tokens of the portal's create-key form, one per form shown (stored hashed). The post
-- that uses one records the key it made; a second post of the same form (back button, double
-- click, replay) finds that key here and makes none. Kept a day.
CREATE TABLE form_tokens (
  token_hash TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  key_id     INTEGER REFERENCES api_keys(id)
) STRICT;
CREATE INDEX form_tokens_by_time ON form_tokens (created_at);
`,
  },
];
