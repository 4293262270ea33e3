import type { WidgetData } from "../../widget/types.ts";

/** A widget-data payload: four chains, deliberately not in price order. */
export function sampleData(overrides: Partial<WidgetData> = {}): WidgetData {
  return {
    barcode: "7290000066318",
    name: "חלב 3% 1 ליטר",
    image_url: null,
    prices: [
      { chain_id: "shufersal", chain_name: "שופרסל", price_ils: "6.90", effective_price_ils: "6.90", is_on_promotion: false, store_count: 3 },
      { chain_id: "victory", chain_name: "ויקטורי", price_ils: "7.40", effective_price_ils: "7.40", is_on_promotion: false, store_count: 2 },
      { chain_id: "rami-levy", chain_name: "רמי לוי", price_ils: "6.20", effective_price_ils: "5.00", is_on_promotion: true, store_count: 2 },
      { chain_id: "yochananof", chain_name: "יוחננוף", price_ils: "5.90", effective_price_ils: "5.90", is_on_promotion: false, store_count: 1 },
    ],
    cheapest_chain_id: "rami-levy",
    data_updated_at: "2026-11-22T05:30:00+02:00",
    ...overrides,
  };
}

export interface FetchCall {
  url: string;
  init?: RequestInit;
}

/** A fetch double answering by barcode; records every call. */
export function fakeFetch(answer: (url: URL) => Response | Promise<Response>) {
  const calls: FetchCall[] = [];
  const fn = async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    await Bun.sleep(5); // in flight for a moment, as a real request would be
    return answer(new URL(url));
  };
  return { fn, calls };
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

export function problem(code: string, status: number): Response {
  return new Response(JSON.stringify({ type: `/docs/errors#${code}`, title: code, status, detail: code, code, request_id: "req_1" }), {
    status,
    headers: { "content-type": "application/problem+json" },
  });
}

/** Polls until `check` holds (the widget renders after promises settle). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

export const PK = "pk_live_" + "a".repeat(32);

/** The shadow-root wrapper of a mounted widget element. */
export function wrapperOf(el: Element): HTMLElement {
  const w = el.shadowRoot?.querySelector(".w");
  if (!w) throw new Error("widget not mounted");
  return w as HTMLElement;
}

export function stateOf(el: Element): string | null {
  return el.shadowRoot?.querySelector(".w")?.getAttribute("data-state") ?? null;
}
