import { joinUrl } from "./listing.ts";
import { walkPages } from "./paged-table.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

/**
 * Netiv HaHesed (`app.netiv-hesed.com`; formerly a bare IP): one table per day,
 * `/?Date=YYYY-MM-DD`, each row linking its file. The portal sits behind Cloudflare; a day with
 * nothing published is an empty table.
 *
 * @example new NetivHaHesedAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class NetivHaHesedAdapter implements PortalAdapter {
  readonly family = "netivhahesed" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  list(options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    // One page per day; `p` is ignored by the portal, so the walk stops after the first page.
    return walkPages(this.ctx.http, (p) => joinUrl(base, `/?Date=${options.date}${p > 1 ? `&p=${p}` : ""}`), /\.(gz|xml|zip)(\?|$)|download/i);
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
