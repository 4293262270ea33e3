import { bumpDataVersion } from "../../src/data/data-state.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import type { testApp } from "./app.ts";
import { Fixture } from "./fixture.ts";

export const MILK = "7290000066318";

/** One product with a price in one store, committed as an import would. */
export function importMilk(ctx: ReturnType<typeof testApp>): void {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  f.price(f.store("shufersal", "1"), f.product(MILK, "חלב 3%"), 690);
  refreshChainProducts(ctx.db.prices);
  bumpDataVersion(ctx.db.prices, "2026-11-22T05:30:00+02:00", "demo");
  ctx.deps.data.refresh();
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(app: { handle(r: Request): Promise<Response> }, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await app.handle(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  let body: any = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

export const withApiKey = (key: string, extra: Record<string, string> = {}): RequestInit => ({ headers: { "x-api-key": key, ...extra } });

/** onAfterResponse (refunds) runs after the answer is handed back: see settle in helpers/app.ts. */
export { settle } from "./app.ts";

/** A new data version with the same data (as a re-import would). */
export function bumpVersion(ctx: ReturnType<typeof testApp>): void {
  bumpDataVersion(ctx.db.prices, "2026-11-23T05:30:00+02:00", "demo");
  ctx.deps.data.refresh();
}
