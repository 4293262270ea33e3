import { DataClient, type FetchLike } from "./api.ts";
import { isBarcode, isPublishableKey, readOptions } from "./options.ts";
import { createWrapper, paint } from "./render.ts";
import { applyStyles } from "./styles.ts";
import type { FetchResult, WidgetOptions } from "./types.ts";

export const SELECTOR = "[data-svc-widget]";

export interface WidgetRuntime {
  /** Mounts every not-yet-mounted widget element in or under `root`. */
  scan(root: ParentNode): void;
  /** Mounts one element (no-op when already mounted). Never throws. */
  mount(el: Element): void;
  /** Watches `root` for widget elements added later; returns the observer (null without MutationObserver). */
  observe(root: Node): MutationObserver | null;
}

/**
 * The widget's engine, bound to one service base URL. Everything that touches the page is
 * wrapped so a failure shows a state in the widget and never throws into the host page.
 */
export function createRuntime(base: string, fetchImpl?: FetchLike): WidgetRuntime {
  const client = new DataClient(base, fetchImpl);
  const mounted = new WeakSet<Element>();
  /** Causes already written to the console: one warning per cause, however many widgets share it. */
  const warned = new Set<string>();

  function mount(el: Element): void {
    if (mounted.has(el)) return;
    mounted.add(el);
    try {
      const options = readOptions(el);
      options.barcode = options.barcode.replace(/^0+(?=\d)/, "");
      // An element that already has a shadow root belongs to someone else's component: leave it.
      if (el.shadowRoot) return;
      const root = el.attachShadow({ mode: "open" });
      applyStyles(root);
      const wrapper = createWrapper(options);
      root.appendChild(wrapper);
      const show = (result: FetchResult | { kind: "loading" }) => {
        try {
          paint(wrapper, result, options, base);
          if (result.kind === "loading") return;
          if (result.kind !== "ok" && result.why && !warned.has(result.why)) {
            warned.add(result.why);
            console.warn(`mehir widget: ${result.why}`);
          }
          announce(el, options, result);
        } catch {
          // A rendering failure leaves the last state on screen; the page is never disturbed.
        }
      };
      show({ kind: "loading" });
      const early = precheck(options);
      if (early) show(early);
      else client.load(options.barcode, options.key, options.chainId).then(show, () => show({ kind: "error" }));
    } catch {
      // attachShadow refuses some elements (e.g. <img>) or a closed root: leave the element as the page made it.
    }
  }

  function scan(root: ParentNode): void {
    try {
      const el = root as Element;
      if (el.nodeType === 1 && el.matches(SELECTOR)) mount(el);
      const found = root.querySelectorAll(SELECTOR);
      for (let i = 0; i < found.length; i++) mount(found[i]!);
    } catch {
      // querySelectorAll on an odd node: nothing to mount.
    }
  }

  function observe(root: Node): MutationObserver | null {
    if (typeof MutationObserver !== "function") return null;
    const observer = new MutationObserver((records) => {
      for (const record of records) {
        for (let i = 0; i < record.addedNodes.length; i++) {
          const node = record.addedNodes[i]!;
          if (node.nodeType === 1) scan(node as Element);
        }
      }
    });
    observer.observe(root, { childList: true, subtree: true });
    return observer;
  }

  return { scan, mount, observe };
}

/** Settles without a request: a secret key is refused (never sent), a malformed barcode cannot exist. */
function precheck(options: WidgetOptions): FetchResult | null {
  if (!isPublishableKey(options.key)) {
    if (/^sk_/.test(options.key)) {
      console.error("mehir widget: data-api-key holds a secret key; use a publishable pk_live_ key. Nothing was sent.");
      return { kind: "key" };
    }
    return { kind: "key", why: `data-api-key ${options.key ? "is not a publishable key (pk_live_…)" : "is missing"}: create a publishable key in the portal` };
  }
  if (!isBarcode(options.barcode)) return { kind: "not_found", why: `data-barcode ${JSON.stringify(options.barcode)} is not a barcode (digits)` };
  return null;
}

/** Fires `svc:widget:ready` or `svc:widget:error` on the element for pages that want to react. */
function announce(el: Element, options: WidgetOptions, result: FetchResult): void {
  const ok = result.kind === "ok";
  el.dispatchEvent(new CustomEvent(ok ? "svc:widget:ready" : "svc:widget:error", { detail: { barcode: options.barcode, state: result.kind } }));
}
