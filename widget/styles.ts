/**
 * The widget's whole stylesheet, applied inside its shadow root only. `:host { all: initial }`
 * stops the page's inherited styles at the boundary, and every inherited property is set again on
 * the wrapper, because a page's `!important` rules on the host element beat `:host` and would
 * otherwise be inherited. Themes through --svc-accent, --svc-font and --svc-radius, which the page
 * may set on the element on purpose. Logical properties serve RTL and LTR alike.
 */
export const CSS = `
:host{all:initial;display:block;contain:content}
:host([hidden]){display:none}
.w{--bg:#fff;--fg:#1a1a1a;--mu:#4a4a4a;--ln:#d4d4d4;--ac:var(--svc-accent,#0b57d0);--cb:#e3f3e8;--cf:#0b5527;--pb:#a61b1b;--pf:#fff;
box-sizing:border-box;display:block;max-width:100%;padding:12px;margin:0;text-align:start;
font:14px/1.45 var(--svc-font,system-ui,-apple-system,"Segoe UI",Arial,sans-serif);
color:var(--fg);background:var(--bg);border:1px solid var(--ln);border-radius:var(--svc-radius,8px);
letter-spacing:normal;word-spacing:normal;text-transform:none;text-indent:0;text-shadow:none;white-space:normal;visibility:visible;cursor:auto}
.dark{--bg:#1d1f23;--fg:#f0f0f0;--mu:#bdbdbd;--ln:#43474e;--ac:var(--svc-accent,#8ab4f8);--cb:#163a22;--cf:#a8e6b8;--pb:#f4b7b2;--pf:#5c1010}
@media (prefers-color-scheme:dark){.auto{--bg:#1d1f23;--fg:#f0f0f0;--mu:#bdbdbd;--ln:#43474e;--ac:var(--svc-accent,#8ab4f8);--cb:#163a22;--cf:#a8e6b8;--pb:#f4b7b2;--pf:#5c1010}}
*{box-sizing:border-box}
.sc{overflow-x:auto}
table{width:100%;border-collapse:collapse;border-spacing:0;font:inherit;color:inherit;margin:0}
caption{caption-side:top;text-align:start;font-weight:700;font-size:15px;padding:0 0 8px}
th,td{padding:6px 8px;text-align:start;vertical-align:middle;border:0;border-block-end:1px solid var(--ln);font-weight:400}
thead th{font-size:12px;font-weight:600;color:var(--mu)}
tbody th{font-weight:600}
.n{white-space:nowrap;font-variant-numeric:tabular-nums}
.best{background:var(--cb);color:var(--cf)}
.best th,.best .p{font-weight:700}
.b{display:inline-block;margin-inline-start:6px;padding:1px 7px;border-radius:999px;font-size:11px;font-weight:700;line-height:1.5;white-space:nowrap}
.bc{background:var(--cf);color:var(--bg)}
.bp{background:var(--pb);color:var(--pf)}
.bs{border:1px solid var(--mu);color:var(--mu)}
.u{font-size:12px}
.was,.low{display:block;font-size:12px;color:var(--mu)}
.best .was,.best .low{color:inherit}
.ft,.more{margin:8px 0 0;font-size:12px;color:var(--mu)}
.st{margin:0;padding:8px 0}
a{color:var(--ac);text-decoration:underline}
a:focus-visible,.sc:focus-visible{outline:3px solid var(--ac);outline-offset:2px;border-radius:2px}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0;padding:0}
`;

let shared: CSSStyleSheet | null | undefined;

/** Adopts one constructed stylesheet (no inline style, CSP-friendly); falls back to a <style>. */
export function applyStyles(root: ShadowRoot): void {
  if (shared === undefined) {
    shared = null;
    try {
      if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function") {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
        shared = sheet;
      }
    } catch {
      shared = null;
    }
  }
  if (shared) root.adoptedStyleSheets = [shared];
  else {
    const style = document.createElement("style");
    style.textContent = CSS;
    root.appendChild(style);
  }
}
