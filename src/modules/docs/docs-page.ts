import { escapeHtml } from "../../http/encoding/html.ts";

/**
 * The API reference page: Scalar, its script served by this service, configured to need no
 * other host — no AI agent ("Ask AI") and no MCP generator (both call Scalar's services), no
 * developer tools, no web fonts, no request proxy, no telemetry.
 */
export function docsPage(o: { title: string; specUrl: string; scriptUrl: string }): string {
  const configuration = {
    url: o.specUrl,
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: "never",
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    documentDownloadType: "json",
  };
  // JSON inside a <script>: `<` escaped so no value can close the element.
  const config = JSON.stringify(configuration).replaceAll("<", "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)}</title>
<style>body{margin:0}</style>
</head>
<body>
<div id="app"></div>
<script src="${escapeHtml(o.scriptUrl)}"></script>
<script>Scalar.createApiReference("#app", ${config});</script>
</body>
</html>`;
}
