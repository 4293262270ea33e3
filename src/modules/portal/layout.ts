import { escapeHtml as e } from "../../http/encoding/html.ts";
import { text } from "./text.ts";
import { strings, type Lang } from "./i18n.ts";

/** The portal's page shell: language and direction, header with navigation, no scripts at all. */

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Arial,sans-serif;color:#1d2430;background:#f4f6f9}
a{color:#0b5cad}
header{background:#123a5e;color:#fff;padding:.75rem 1.25rem;display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
header .brand{font-weight:700;margin-inline-end:auto}
header a,header button{color:#fff}
header form{margin:0}
header button{background:none;border:1px solid #fff6;border-radius:6px;padding:.2rem .7rem;font:inherit;cursor:pointer}
main{max-width:980px;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.5rem;margin:.2rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #dde3ea;border-radius:10px;padding:1.1rem 1.25rem;margin-bottom:1.25rem}
.narrow{max-width:440px;margin-inline:auto}
label{display:block;font-weight:600;margin:.6rem 0 .25rem}
input[type=email],input[type=password],input[type=text],select,textarea{width:100%;padding:.5rem .6rem;border:1px solid #b8c2cf;border-radius:6px;font:inherit;background:#fff}
textarea{min-height:4.2rem;direction:ltr;text-align:left}
.btn{display:inline-block;margin-top:.8rem;background:#0b5cad;color:#fff;border:0;border-radius:6px;padding:.5rem 1.1rem;font:inherit;font-weight:600;cursor:pointer}
.btn.small{margin:0;padding:.25rem .7rem;font-size:.9rem}
.btn.danger{background:#b42318}
.btn.secondary{background:#e7eef7;color:#123a5e}
a.btn{text-decoration:none}
.hint{color:#5b6675;font-size:.9rem}
.error{background:#fdecea;border:1px solid #f5c2bd;color:#8a1c12;border-radius:6px;padding:.6rem .8rem;margin-bottom:1rem}
.notice{background:#e8f4ea;border:1px solid #b9dfc0;color:#1e5b2b;border-radius:6px;padding:.6rem .8rem;margin-bottom:1rem}
table{width:100%;border-collapse:collapse}
th,td{text-align:start;padding:.5rem .4rem;border-bottom:1px solid #e6eaef;vertical-align:top}
th{font-size:.85rem;color:#5b6675;font-weight:600}
code,.key{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;direction:ltr;unicode-bidi:isolate}
.key{white-space:nowrap}
bdi{unicode-bidi:isolate}
.newkey{display:block;font-size:1.05rem;padding:.8rem;background:#f1f5f9;border:1px dashed #7c8a9c;border-radius:6px;word-break:break-all;user-select:all}
.plan{display:inline-block;background:#e7eef7;color:#123a5e;border-radius:999px;padding:.1rem .7rem;font-weight:700}
.meter{height:10px;background:#e6eaef;border-radius:5px;overflow:hidden;margin:.5rem 0}
.meter span{display:block;height:100%;background:#0b5cad}
.row{display:flex;flex-wrap:wrap;gap:1rem}
.row>*{flex:1 1 260px}
details{margin-top:.75rem}
.muted{color:#8a94a3}
.error-text{color:#8a1c12}
.alert{border-top:1px solid #e3e7ed;padding-top:.5rem;margin-top:.75rem}
.alert th[scope=row]{width:8rem;font-weight:600}
.usage-chart{display:grid;grid-template-columns:auto 1fr;grid-template-rows:140px auto;gap:.25rem .4rem;margin:0;font-size:.8rem;color:#5b6675}
.chart-y{display:flex;flex-direction:column;justify-content:space-between;text-align:right;line-height:1}
.chart-bars{width:100%;height:140px;display:block;border-bottom:1px solid #b8c2cf}
.chart-x{grid-column:2;position:relative;height:1.2em}
.chart-x span{position:absolute;transform:translateX(-50%);line-height:1.2}
.keys td.actions{text-align:end}
table.plans td,table.plans th{padding:.25rem .4rem;font-size:.9rem}
table.plans tr.current th{color:#0b5cad}
.keys td.when{white-space:nowrap}
main,.card,.row>*{min-width:0}
.inline{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.inline input[type=search]{flex:1 1 14rem;width:auto;padding:.5rem .6rem;border:1px solid #b8c2cf;border-radius:6px;font:inherit}
.inline .btn{margin:0}
.inline select{width:auto;max-width:100%}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
ul.results{list-style:none;padding:0;margin:0}
ul.results li{padding:.55rem 0;border-bottom:1px solid #e6eaef}
ul.results a{font-weight:600}
.badge{display:inline-block;background:#fdf1dc;color:#7a4b00;border-radius:999px;padding:0 .5rem;font-size:.8rem}
table.data td,table.data th{padding:.4rem}
.line-chart{display:grid;grid-template-columns:auto 1fr;grid-template-rows:200px auto;gap:.25rem .4rem;margin:0 0 .5rem;font-size:.8rem;color:#5b6675}
.chart-lines{width:100%;height:200px;display:block;border-bottom:1px solid #b8c2cf;border-left:1px solid #b8c2cf}
.line-chart .chart-x span{white-space:nowrap}
.line-chart .chart-x span:first-child{transform:none}
.line-chart .chart-x span:last-child{transform:translateX(-100%)}
.legend{list-style:none;padding:0;margin:0 0 .75rem;display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.9rem}
.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:3px;margin-inline-end:.35rem;vertical-align:-.1rem}
textarea,input,select{max-width:100%}
.newkey,.card p,.hint{overflow-wrap:anywhere}
@media (max-width:640px){
  header{padding:.6rem .9rem;gap:.4rem .9rem}
  main{margin:1rem auto;padding:0 .6rem}
  .card{padding:.9rem .8rem}
  .row>*{flex-basis:100%}
  table.keys,table.keys tbody,table.keys tr,table.keys td{display:block;width:100%}
  table.keys thead{display:none}
  table.keys tr{border-bottom:1px solid #e6eaef;padding:.5rem 0}
  table.keys td{border:0;padding:.15rem 0}
  table.keys td[data-label]::before{content:attr(data-label) ": ";color:#5b6675;font-size:.85rem}
  table.keys td.actions{text-align:start;padding-top:.4rem}
  table.stacked,table.stacked tbody,table.stacked tr,table.stacked td{display:block;width:100%}
  table.stacked thead{display:none}
  table.stacked tr{border-bottom:1px solid #e6eaef;padding:.4rem 0}
  table.stacked td{border:0;padding:.1rem 0}
  table.stacked td[data-label]::before{content:attr(data-label) ": ";color:#5b6675;font-size:.85rem}
}
`;

export interface PageOptions {
  lang: Lang;
  title: string;
  body: string;
  /** Where the language toggle points (a GET path, with its query if any). */
  path: string;
  /** When signed in: the session's CSRF token, for the sign-out form. */
  csrf?: string;
}

export function renderPage(options: PageOptions): string {
  const t = strings(options.lang);
  const other = options.lang === "he" ? "en" : "he";
  const signOut = options.csrf
    ? `<form method="post" action="/portal/signout"><input type="hidden" name="csrf" value="${e(options.csrf)}"><button type="submit">${e(t.signOut)}</button></form>`
    : "";
  return `<!doctype html>
<html lang="${options.lang}" dir="${options.lang === "he" ? "rtl" : "ltr"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${e(options.title)} · ${e(t.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<span class="brand">${text(t.brand)}</span>
<a href="/portal/explore">${text(t.explore)}</a>
<a href="/docs">${text(t.docs)}</a>
<a href="/widget/v1/demo.html">${text(t.widgetDemo)}</a>
<a href="${e(options.path)}${options.path.includes("?") ? "&" : "?"}lang=${other}" lang="${other}" hreflang="${other}">${e(t.otherLang)}</a>
${signOut}
</header>
<main>
${options.body}
</main>
</body>
</html>`;
}

/** Headers of every portal page: never cached, never framed, no scripts. */
export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};
