import { walkPages } from "./paged-table.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

/**
 * Hazi Hinam (`shop.hazi-hinam.co.il/Prices`): a paged table per kind,
 * `?t=<1 prices, 2 promos, 3 stores>&f=&d=YYYY-MM-DD&p=N`, whose links point straight at
 * (unsigned) Azure blobs.
 *
 * @example new HaziHinamAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class HaziHinamAdapter implements PortalAdapter {
  readonly family = "hazihinam" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  async list(options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url.replace(/\/+$/, "");
    const out: ListedFile[] = [];
    for (const t of [3, 1, 2]) {
      out.push(...(await walkPages(this.ctx.http, (p) => `${base}?t=${t}&f=&d=${options.date}&p=${p}`, /\.(gz|xml|zip)(\?|$)/i)));
    }
    return out;
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
