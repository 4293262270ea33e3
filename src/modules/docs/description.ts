/**
 * The OpenAPI document's introduction (Markdown): the rules every endpoint shares. Each rule is a
 * heading of its own, so the docs list it in their navigation and their search finds it.
 */
export const API_DESCRIPTION = `
Prices of products sold by Israel's supermarket chains, from the files every chain must publish under the
price-transparency regulations, refreshed daily. Create a key in the developer portal at \`/portal/\`, type it in the
authentication box of this page, and every example below runs as it is. The guides beside this reference are in the
project's \`docs/\` folder: \`api.md\` (the rules behind every figure), \`operations.md\` (running a server), \`data.md\`,
\`mcp.md\` and \`architecture.md\`.

## Authentication

Send a secret key in the \`X-API-Key\` header: \`sk_live_…\` (counted against the monthly quota) or \`sk_test_…\` (never
counted). Publishable keys (\`pk_live_…\`) work only on \`/api/v1/widget/data/\`, in the header or the \`key\` query
parameter, from the origins the key allows. Secret keys are refused in query strings. No key, or an unknown or revoked
one: 401 \`missing_api_key\` / \`invalid_api_key\` — create a key at \`/portal/\`.

## Plans and quotas

Free ⊂ Basic ⊂ Pro; a key keeps its account's plan.

- **Free** — 200 calls a month, 60 a minute (burst 15): prices, batch prices, product search, chains, stores.
- **Basic** — 10,000 calls a month, 300 a minute (burst 75): Free's, plus price history, chain catalogs and the
  chain price index.
- **Pro** — 100,000 calls a month, 1,200 a minute (burst 300): Basic's, plus promotions, basket comparison and plan,
  price alerts and the daily exports.

These figures are the defaults: the server's operator sets them (\`MEHIR_QUOTA_*\`, \`MEHIR_RATE_*\`) and changes an account's plan (\`mehir accounts\`). An operation beyond the key's plan is
403 \`plan_upgrade_required\` (not counted). Counted against the quota:
answered requests of a live key; never 304, 429, 5xx or 403 \`plan_upgrade_required\` (nothing was served). Quota
spent: 429 \`quota_exceeded\` with \`Retry-After\` until the next month (UTC).

## Rate limits

Every response carries \`X-RateLimit-Limit\` (per minute), \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; secret-key
responses also \`X-Quota-Limit\` and \`X-Quota-Remaining\`. Rate limits are token buckets: a key's bucket holds a quarter of
its per-minute figure (the burst) and refills evenly over the minute (Free: one request a second). A client may send a
burst at once, then keeps pace with the refill; \`X-RateLimit-Remaining\` is what the bucket holds now and
\`X-RateLimit-Reset\` the seconds until it is full again. Over the limit: 429 \`rate_limited\` with \`Retry-After\` in
seconds — wait that long and send again.

## Errors

Success: \`{ "data": …, "meta": { "request_id", "livemode", "quota_remaining", … } }\`. Errors are
\`application/problem+json\`: \`{ type, title, status, detail, code, param?, request_id }\`. \`code\` is stable: program
against it, show \`detail\` to people, and quote \`request_id\` when asking the operator. The codes and what to do about
each: [the error list](/docs/errors).

## Pagination

\`limit\` (1–100, default 20) and \`cursor\` (opaque); \`meta.next_cursor\` is null on the last page. A cursor is bound to
the data version it was made on: after a data refresh, start again (400 \`invalid_cursor\`).

## Test mode

\`sk_test_…\` keys read test-mode data, never the live data: the sandbox, the service's embedded demo dataset
(deterministic, in the chains' own file formats, seed 1 — the same chains, stores, products, barcodes, names, prices,
price changes and promotions on every server whenever it was made, so tests written against it hold everywhere, exact
figures included; only its dates follow the day it was made: its 24-month timeline ends shortly before then, every date
moved by whole days from a fixed plan), kept in a database of its own. Live keys never read it. Every answer says which
it is: \`meta.livemode\` is \`true\` for live (and publishable) keys, \`false\` for test keys. Test keys keep their
account's plan (which operations they may call) and rate limit, and never count against the quota. On a server whose
live data is itself the demo dataset, both kinds read that same data (only \`meta.livemode\` differs). The sandbox is
made the first time it is needed, in seconds, without delaying live answers; until then a test key gets 503
\`data_not_ready\` with \`Retry-After\`. Cursors and ETags of one mode are not valid in the other (400 \`invalid_cursor\`;
no 304). Price alerts and the daily exports (files of the live data) are live-only: a test key gets 403
\`live_key_required\` there.

## Money, times and barcodes

Money is a decimal string in shekels with two places (\`"12.90"\`). Times are ISO 8601 with the Israel offset. Barcodes
are digit strings; leading zeros are not significant.

## Query strings

Every value is read as the text it is (URL-decoded): commas, semicolons, brackets and quotes are part of the value
(\`q=חלב, 3%\`); send a plus sign as \`%2B\` (\`+\` is a space). A parameter given twice is 400 \`invalid_parameter\` naming
it. URLs longer than 8 KiB are 414 \`uri_too_long\` (send long lists in a POST body, e.g. \`/api/v1/prices/batch/\`). An
unknown \`city\` filter is 404 \`city_not_found\`, like an unknown \`chain_id\`.

## Caching

GET responses carry a weak \`ETag\` and \`Last-Modified\`; send \`If-None-Match\` to get 304 (not counted);
\`If-None-Match: *\` gets 304 whenever the answer exists (an error otherwise).

## Clients, Postman and Insomnia

Typed clients for TypeScript and Python are in the project's \`clients/\` folder. This document is at \`/docs/json\`:
import it into Postman or Insomnia (Import → link or file), then set the base URL to this server and the API key
header.

## AI assistants (MCP)

\`POST /mcp\` offers these operations as tools for AI assistants over the Model Context Protocol (Streamable HTTP,
JSON-RPC, stateless), with the same keys (also as \`Authorization: Bearer\`), plans and quota: each tool call counts as the
API call it makes. This document describes the endpoint only as JSON-RPC over HTTP (its status codes and errors); the
endpoint's \`tools/list\` describes its tools, and the project's docs/mcp.md how to connect an assistant.
`;
