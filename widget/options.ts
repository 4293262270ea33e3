import type { WidgetOptions } from "./types.ts";

export const DEFAULT_LIMIT = 5;
export const MAX_LIMIT = 50;

/** Reads an element's data-* attributes: data-barcode, data-chain-id, data-api-key, data-limit, data-lang, data-theme. */
export function readOptions(el: Element): WidgetOptions {
  const attr = (name: string) => (el.getAttribute("data-" + name) || "").trim();
  const limit = parseInt(attr("limit"), 10);
  const theme = attr("theme").toLowerCase();
  return {
    barcode: attr("barcode"),
    chainId: /^[a-z0-9-]{1,40}$/.test(attr("chain-id")) ? attr("chain-id") : undefined,
    key: attr("api-key"),
    limit: limit >= 1 ? Math.min(limit, MAX_LIMIT) : DEFAULT_LIMIT,
    lang: attr("lang").toLowerCase() === "en" ? "en" : "he",
    theme: theme === "dark" || theme === "auto" ? theme : "light",
  };
}

/** As the API accepts them: 1–20 digits, or a generic product id (`g-tomatoes`). */
export function isBarcode(value: string): boolean {
  return /^(\d{1,20}|g-[a-z0-9]+(-[a-z0-9]+)*)$/.test(value);
}

/** Only publishable keys may sit in a page; a secret key is never sent anywhere. */
export function isPublishableKey(value: string): boolean {
  return /^pk_live_[A-Za-z0-9]{8,64}$/.test(value);
}
