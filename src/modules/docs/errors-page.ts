import { ERROR_CODES } from "../../http/encoding/problem.ts";
import { escapeHtml } from "../../http/encoding/html.ts";

/** The error list every problem+json `type` links into (`/docs/errors#<code>`). */
export function errorsPage(): string {
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
<p><a href="/docs">API reference</a></p></body></html>`;
}
