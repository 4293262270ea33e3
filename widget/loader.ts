/**
 * /widget/v1/loader.js — the embeddable price-comparison widget.
 *
 *   <div data-svc-widget data-barcode="7291252436027" data-api-key="pk_live_…"></div>
 *   (a chain-internal item: data-barcode="4087" data-chain-id="rami-levy"; loose produce: data-barcode="g-tomatoes")
 *   <script src="https://prices.example/widget/v1/loader.js" async></script>
 *
 * Safe to include twice: the second copy only rescans the page.
 */
import { serviceBase } from "./base-url.ts";
import { createRuntime } from "./runtime.ts";

interface GlobalHandle {
  version: string;
  scan(): void;
  mount(el: Element): void;
}

(() => {
  try {
    const w = window as unknown as { SvcWidget?: GlobalHandle };
    if (w.SvcWidget) {
      w.SvcWidget.scan();
      return;
    }
    const base = serviceBase(document);
    if (base === null) {
      console.error("mehir widget: cannot tell which server loader.js came from.");
      return;
    }
    const runtime = createRuntime(base);
    const scan = () => runtime.scan(document);
    w.SvcWidget = { version: "1", scan, mount: runtime.mount };
    runtime.observe(document.documentElement);
    scan();
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scan);
  } catch {
    // Never throw into the host page.
  }
})();
