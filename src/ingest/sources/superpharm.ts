import { HttpError } from "./http.ts";
import { dmy, joinUrl, listedFile } from "./listing.ts";
import { lastSegment, tableRows, textOf } from "./html.ts";
import { jsonOrFile } from "./peek.ts";
import { checkPortalLink } from "./link-guard.ts";
import { assertListing } from "./not-listing.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

const MAX_PAGES = 200;

/**
 * Super-Pharm (`prices.super-pharm.co.il`): a paged MVC grid,
 * `/?Category-equals=<Stores|PriceFull|PromoFull|Price|Promo>&Date-equals=dd/MM/yyyy&page=N`;
 * each row names its file in the second cell and links `/Download/<name>?…`, which answers
 * either the file or JSON `{"href": …}` pointing at it (then fetched in a second GET) — read by
 * its bytes, not its content type. An href off the portal's site or to a private address is
 * refused (link-guard.ts).
 *
 * @example new SuperPharmAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class SuperPharmAdapter implements PortalAdapter {
  readonly family = "superpharm" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  private async category(category: string, date: string): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const seen = new Map<string, ListedFile>();
    let totalPages = Infinity;
    for (let page = 1; page <= Math.min(totalPages, MAX_PAGES); page++) {
      const url = joinUrl(base, `/?Category-equals=${category}&Date-equals=${encodeURIComponent(dmy(date))}&page=${page}`);
      const { text } = await this.ctx.http.text(url);
      // The grid is there on a day with no files too (data-total-rows="0").
      if (page === 1) assertListing(url, text, /<table\b|data-total-rows=|mvc-grid/i);
      const total = text.match(/data-total-rows=["'](\d+)["']/)?.[1];
      const perPage = text.match(/data-rows-per-page=["'](\d+)["']/)?.[1];
      if (total && totalPages === Infinity) totalPages = Math.max(1, Math.ceil(Number(total) / Number(perPage ?? 20)));
      let fresh = 0;
      for (const row of tableRows(text)) {
        const href = row.hrefs.find((h) => /download/i.test(h));
        if (!href) continue;
        const name = lastSegment(href);
        if (!name || seen.has(name)) continue;
        const cells = row.cells.map(textOf);
        const time = cells.find((c) => /\d{1,2}\/\d{1,2}\/\d{4}|\d{4}-\d{2}-\d{2}/.test(c)) ?? null;
        seen.set(name, listedFile(name, new URL(href, base.endsWith("/") ? base : base + "/").toString(), { portalTime: time }));
        fresh++;
      }
      if (fresh === 0) break;
    }
    return [...seen.values()];
  }

  async list(options: ListOptions): Promise<ListedFile[]> {
    const categories = options.deltas ? ["Stores", "PriceFull", "PromoFull", "Price", "Promo"] : ["Stores", "PriceFull", "PromoFull"];
    const out: ListedFile[] = [];
    for (const c of categories) out.push(...(await this.category(c, options.date)));
    return out;
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    const res = await this.ctx.http.send(file.url, {}, signal);
    if (!res.ok) return res;
    // `/Download/<name>` answers JSON `{"href": …}` (whatever its content type says) or the file itself.
    const peeked = await jsonOrFile(res);
    if ("file" in peeked) return peeked.file;
    const href = (peeked.json as { href?: unknown } | null)?.href;
    if (typeof href !== "string" || !href) throw new HttpError(`superpharm: no href for ${file.fileName}`, null, false);
    return this.ctx.http.send(checkPortalLink(href, file.url, this.ctx.portal.base_url), {}, signal);
  }
}
