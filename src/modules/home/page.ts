import type { Readiness } from "../health/service.ts";

/** What `GET /` tells a person or a program about this server. */
export interface HomeIndex {
  name: string;
  description: string;
  data: Readiness;
  links: Record<"docs" | "openapi" | "errors" | "portal" | "widget_demo" | "readiness", string>;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** "updated 2026-11-29 05:30 (Israel time)", or why there is no data yet. */
function freshness(data: Readiness): string {
  if (!data.data) return "Preparing the data (first start): the API answers <code>503 data_not_ready</code> until it is ready.";
  const when = data.data_updated_at ? escape(data.data_updated_at.replace("T", " ").slice(0, 16)) : "unknown";
  const source = data.source === "demo" ? "the embedded <strong>demo</strong> data (made-up prices, real shapes)" : "the chains' <strong>published</strong> files";
  return `Serving ${source}, updated ${when} (Israel time)${data.search ? "" : "; the search index is still being built"}.`;
}

/**
 * The page a person sees at `/`: what this server is, how fresh its data is, and where to go next.
 * Plain HTML and CSS, no script, readable at 390 px.
 */
export function homePage(index: HomeIndex): string {
  const link = (href: string, label: string, note: string) => `<li><a href="${escape(href)}">${label}</a> — ${note}</li>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>mehir — Israeli supermarket prices API</title>
<style>
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Arial,sans-serif;max-width:44rem;margin:0 auto;padding:24px 16px;color:#1a1a1a;background:#fff}
h1{font-size:1.6rem;margin:0 0 4px}.he{color:#4a4a4a;margin:0 0 16px}
.data{padding:12px 14px;border:1px solid #d4d4d4;border-radius:8px;background:#f7f9fc}
ul{padding-inline-start:20px}li{margin:6px 0}a{color:#0b57d0}code{font-size:.9em;background:#f0f0f0;padding:1px 4px;border-radius:4px}
pre{overflow-x:auto;background:#f0f0f0;padding:10px;border-radius:6px;font-size:.85em}
@media (prefers-color-scheme:dark){body{background:#1d1f23;color:#f0f0f0}.he{color:#bdbdbd}.data{background:#262a31;border-color:#43474e}a{color:#8ab4f8}code,pre{background:#2b2f36}}
</style></head>
<body>
<h1>mehir</h1>
<p class="he" lang="he" dir="rtl">מחירי המוצרים ברשתות השיווק בישראל</p>
<p>${escape(index.description)}</p>
<p class="data">${freshness(index.data)}</p>
<h2>Start here</h2>
<ul>
${link(index.links.portal, "Developer portal", "sign up and create an API key")}
${link(index.links.docs, "API documentation", "every operation, with examples you can send")}
${link(index.links.widget_demo, "Widget demo", "the price widget a shop or blog embeds with one script tag")}
${link(index.links.errors, "Error codes", "what each problem code means")}
${link(index.links.openapi, "OpenAPI document", "for code generators, Postman or Insomnia")}
</ul>
<h2>First call</h2>
<pre>curl -H "X-API-Key: $KEY" "${escape(index.links.docs.replace(/\/docs$/, ""))}/api/v1/prices/?barcode=7290000066318"</pre>
</body></html>`;
}
