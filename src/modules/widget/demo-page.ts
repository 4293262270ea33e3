import { escapeHtml } from "../../http/encoding/html.ts";
import type { DemoProduct } from "./service.ts";

/** A publishable key as the portal issues it. */
export const PUBLISHABLE_KEY = /^pk_live_[A-Za-z0-9]{8,64}$/;

/** Widget variants shown side by side, one per demo product. */
const VARIANTS = [
  { label: "עברית, ערכת צבעים בהירה", attrs: `data-theme="light"` },
  { label: "עברית, ערכת צבעים כהה, שלוש שורות", attrs: `data-theme="dark" data-limit="3"` },
  { label: "English, theme follows the system", attrs: `data-lang="en" data-theme="auto"` },
  { label: "עברית, ברירות המחדל", attrs: `` },
];

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:24px;color:#1a1a1a;background:#f6f6f4}
h1{font-size:24px}h2{font-size:17px;margin:0 0 8px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,380px),1fr));gap:20px}
.card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:16px}
.meta{color:#555;font-size:13px;margin:0 0 8px}
pre{background:#fff;border:1px solid #ddd;padding:12px;overflow-x:auto;direction:ltr;text-align:left}
.note{background:#fff7d6;border:1px solid #e6cf74;padding:12px;border-radius:8px}
input{font:inherit;padding:4px 8px;min-width:22em;direction:ltr}
a:focus-visible,input:focus-visible,button:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
`;

/** What the page knows of a visitor's own key, as the access layer will judge the widgets' requests. */
export type VisitorKeyFit =
  /** Unknown, revoked, or not a publishable key: every widget shows its key error. */
  | { fit: "unusable" }
  /** No allowed origins: any site, this page included. */
  | { fit: "any-origin" }
  /** Its allowed origins include this page's. */
  | { fit: "allowed-here"; origins: string[] }
  /** Limited to other sites: refused here (403 origin_not_allowed), each widget says the key is not allowed. */
  | { fit: "other-origins"; origins: string[] };

export interface DemoPageInput {
  /** The visitor's own key (`?key=`), judged; null when the page uses the demo key or none. */
  visitorKey?: VisitorKeyFit | null;
  /** The key the widgets on the page use: the visitor's (`?key=`) or the service's own demo key; null when neither. */
  key: string | null;
  /** True when `key` is the service's demo key (it works only on this service's own pages). */
  keyIsDemo: boolean;
  /** True when a key was given but is not a publishable key. */
  badKey: boolean;
  products: DemoProduct[];
  hasData: boolean;
  /** The service origin as the browser reached it, for the copyable snippet. */
  origin: string;
}

const KEY_FORM =
  `<form method="get" action="/widget/v1/demo.html"><label>מפתח פומבי: <input name="key" placeholder="pk_live_…" dir="ltr" autocomplete="off"></label> <button>הצגה</button></form>`;

const ltrList = (origins: string[]) => origins.map((o) => `<bdi dir="ltr">${escapeHtml(o === "self" ? "(this service)" : o)}</bdi>`).join(", ");

/** The notice about the visitor's own key: what the widgets below will do with it, and why. */
function visitorKeyNote(key: VisitorKeyFit, origin: string): string {
  const here = `<bdi dir="ltr">${escapeHtml(origin)}</bdi>`;
  const withoutKey = `<a href="/widget/v1/demo.html">בלי המפתח</a> הדף משתמש במפתח ההדגמה.`;
  switch (key.fit) {
    case "unusable":
      return `<p class="note" id="key-note" data-fit="unusable">הדף משתמש במפתח שלכם, אך המפתח אינו מוכר לשירות או שבוטל: כל ווידג׳ט יציג שהמפתח אינו תקין. ${withoutKey}</p>`;
    case "any-origin":
      return `<p class="note" id="key-note" data-fit="any-origin">הדף משתמש במפתח שלכם. הוא אינו מוגבל למקורות, ולכן פועל גם כאן וגם בכל אתר אחר.</p>`;
    case "allowed-here":
      return `<p class="note" id="key-note" data-fit="allowed-here">הדף משתמש במפתח שלכם. המקורות המורשים שלו (${ltrList(key.origins)}) כוללים את הדף הזה (${here}), ולכן הווידג׳טים פועלים.</p>`;
    case "other-origins":
      return (
        `<p class="note" id="key-note" data-fit="other-origins">הדף משתמש במפתח שלכם, המוגבל ל־${ltrList(key.origins)}. הדף הזה (${here}) אינו ביניהם, ולכן השירות מסרב לבקשות הווידג׳טים כאן ` +
        `(<code dir="ltr">403 origin_not_allowed</code>) וכל ווידג׳ט מציג שהמפתח אינו מורשה באתר זה — כפי שיקרה בכל אתר שאינו ברשימה. באתרים שברשימה הוא יפעל. ${withoutKey}</p>`
      );
  }
}

/** /widget/v1/demo.html: the widget on the products sold in most stores, with the embed snippet. */
export function demoPage(input: DemoPageInput): string {
  const { key, products } = input;
  const parts: string[] = [];
  if (input.badKey) {
    parts.push(`<p class="note">המפתח שנמסר אינו מפתח פומבי (<code dir="ltr">pk_live_…</code>)${key ? "; הדף משתמש במפתח ההדגמה." : "."}</p>`);
  }
  if (!key) {
    // Only when the operator revoked the service's demo key.
    parts.push(
      `<div class="note"><p>כדי לראות את הווידג׳ט צריך מפתח פומבי. צרו אחד ב<a href="/portal/">פורטל המפתחים</a> (חינם), ` +
        `ואז פתחו את הדף עם <code dir="ltr">?key=pk_live_…</code> או הדביקו אותו כאן:</p>${KEY_FORM}</div>`,
    );
  }
  if (!input.hasData) parts.push(`<p class="note">עדיין אין נתוני מחירים: הייבוא הראשון טרם הסתיים. רעננו בעוד רגע.</p>`);
  else if (products.length === 0) parts.push(`<p class="note">אין מוצרים משותפים לרשתות בנתונים הנוכחיים.</p>`);
  if (key && products.length > 0) {
    const cards = products.map((p, i) => {
      const variant = VARIANTS[i % VARIANTS.length]!;
      return (
        `<section class="card"><h2>${escapeHtml(p.name)}</h2>` +
        `<p class="meta">ברקוד <bdi>${escapeHtml(p.barcode)}</bdi> · ${p.chains} רשתות · ${p.stores} סניפים · <bdi>${escapeHtml(variant.label)}</bdi></p>` +
        `<div data-svc-widget data-barcode="${escapeHtml(p.barcode)}" data-api-key="${escapeHtml(key)}" ${variant.attrs}>` +
        `<a href="/docs">השוואת מחירים</a></div></section>`
      );
    });
    parts.push(`<div class="grid">${cards.join("")}</div>`);
    // The demo key works only on this service's own pages: the snippet names the visitor's own key.
    const snippetKey = input.keyIsDemo ? "pk_live_…" : key;
    const snippet =
      `<div data-svc-widget data-barcode="${products[0]!.barcode}" data-api-key="${snippetKey}"></div>\n` +
      `<script src="${input.origin}/widget/v1/loader.js" async></script>`;
    parts.push(`<h2>הטמעה באתר שלכם</h2><pre><code id="snippet">${escapeHtml(snippet)}</code></pre>`);
    if (!input.keyIsDemo) parts.push(visitorKeyNote(input.visitorKey ?? { fit: "unusable" }, input.origin));
    if (input.keyIsDemo) {
      parts.push(
        `<p>הדף משתמש במפתח הדגמה של השירות, שפועל רק בדפי השירות עצמו. לאתר שלכם צרו מפתח פומבי ב<a href="/portal/">פורטל המפתחים</a> (חינם), ` +
          `או נסו אותו כאן:</p>${KEY_FORM}`,
      );
    }
    parts.push(`<p>אפשרויות: <code>data-limit</code> (ברירת מחדל 5), <code>data-lang</code> (<code>he</code> או <code>en</code>), <code>data-theme</code> (<code>light</code>, <code>dark</code>, <code>auto</code>). ` +
      `התיעוד המלא: <a href="/docs"><bdi>/docs</bdi></a>.</p>`);
  }
  return `<!doctype html>
<html lang="he" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mehir — הדגמת ווידג׳ט השוואת המחירים</title>
<style>${STYLE}</style>
</head>
<body>
<h1>ווידג׳ט השוואת מחירים — הדגמה</h1>
<p>המוצרים שלהלן נבחרו מהנתונים הנוכחיים: אלה הנמכרים במספר הסניפים הגדול ביותר.</p>
${parts.join("\n")}
<script src="/widget/v1/loader.js" async></script>
</body>
</html>`;
}
