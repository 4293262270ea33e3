import { ERROR_CODES } from "../../errors/api-error.ts";
import { escapeHtml } from "../../http/encoding/html.ts";
import { PLAN_NAMES } from "../../accounts/plan-limits.ts";
import type { Audience, Operation } from "../../openapi/operation.ts";
import { openapiPath } from "../../openapi/document.ts";

/** Who may call an operation, as the access layer reads it from the operation's declaration. */
function audienceText(audience: Audience): string {
  if (audience === "publishable") return "a publishable key (pk_live_)";
  if (audience === "mcp") return "a secret key of any plan (each tool call is gated as the API call it makes)";
  if (audience === "public") return "anyone, no key";
  return `a secret key on the ${PLAN_NAMES[audience]} plan or higher`;
}

/**
 * The error list every problem+json `type` links into (`/docs/errors#<code>`), and who may call
 * each operation (what `plan_upgrade_required`, `publishable_key_not_allowed` and
 * `live_key_required` follow), read from the audience each route declares.
 */
export function errorsPage(operations: readonly Operation[]): string {
  const access = operations
    .filter((op) => op.audience !== "public")
    .map((op) => `<tr><td><code>${op.method.toUpperCase()} ${escapeHtml(openapiPath(op.path))}</code></td><td>${escapeHtml(audienceText(op.audience))}${op.liveOnly ? "; live keys only (<code>live_key_required</code>)" : ""}</td></tr>`)
    .join("\n");
  const rows = Object.entries(ERROR_CODES)
    .map(([code, { status, title }]) => `<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${escapeHtml(title)}</td></tr>`)
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mehir API errors</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}tr:target{background:#fff6d6}</style></head>
<body><h1>Errors</h1><p>Every error is <code>application/problem+json</code>:
<code>{ "type", "title", "status", "detail", "code", "param"?, "request_id" }</code>. Branch on <code>code</code>; it never changes.</p>
<table><thead><tr><th scope="col">code</th><th scope="col">status</th><th scope="col">meaning</th></tr></thead><tbody>
${rows}
</tbody></table>
<p><code>ambiguous_product</code> (400): a bare chain-internal item code that several chains use. The body adds
<code>"candidates": [{ "barcode", "chain_id", "name" }]</code>; pass the chosen item's <code>barcode</code> with its
<code>chain_id</code>. A search or catalog item's <code>barcode</code> and, when present, its <code>chain_id</code> are the
identifiers to pass to prices, history, basket and widget data, so following them never meets this error.</p>
<h2 id="access">Who may call what</h2>
<p>A key below the plan an operation needs gets <code>plan_upgrade_required</code>; a key of the wrong kind
<code>secret_key_not_allowed</code> or <code>publishable_key_not_allowed</code>.</p>
<table><thead><tr><th scope="col">operation</th><th scope="col">who</th></tr></thead><tbody>
${access}
</tbody></table>
<p><a href="/docs">API reference</a></p></body></html>`;
}
