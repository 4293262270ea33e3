import { joinUrl } from "./listing.ts";
import { walkPages } from "./paged-table.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

/**
 * City Market shops (`www.citymarket-shops.co.il`): a paged table `/?t=&f=&d=YYYY-MM-DD&s=&p=N`
 * with columns time, branch, file name, kind and an opaque `/downloadFile/<guid>` link.
 *
 * @example new CityMarketAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class CityMarketAdapter implements PortalAdapter {
  readonly family = "citymarket" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  list(options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    return walkPages(this.ctx.http, (p) => joinUrl(base, `/?t=&f=&d=${options.date}&s=&p=${p}`), /downloadfile|\.(gz|xml|zip)(\?|$)/i);
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
