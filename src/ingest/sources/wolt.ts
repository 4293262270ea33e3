import { joinUrl, listedFile } from "./listing.ts";
import { hrefsOf, lastSegment } from "./html.ts";
import { assertListing } from "./not-listing.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

/**
 * Wolt Market (`wm-gateway.wolt.com/isr-prices/public/v1`): `index.html` links one page per
 * day (`<YYYY-MM-DD>.html`), each a list of `download/<date>/<name>` links. The day page is
 * fetched directly; the index is read only when it is missing, to report what days exist.
 *
 * @example new WoltAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class WoltAdapter implements PortalAdapter {
  readonly family = "wolt" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  async list(options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url.replace(/\/index\.html$/, "");
    const index = await this.ctx.http.text(joinUrl(base, "/index.html"));
    const days = new Set(hrefsOf(index.text).map((h) => h.match(/(\d{4}-\d{2}-\d{2})\.html$/)?.[1]).filter(Boolean));
    // The index links every day still up: a page with no day link is not the index.
    assertListing(joinUrl(base, "/index.html"), index.text, /\d{4}-\d{2}-\d{2}\.html/);
    if (!days.has(options.date)) return [];
    const dayUrl = joinUrl(base, `/${options.date}.html`);
    const page = await this.ctx.http.text(dayUrl);
    const out: ListedFile[] = [];
    for (const href of hrefsOf(page.text)) {
      if (!/download\//i.test(href)) continue;
      const name = lastSegment(href);
      if (name) out.push(listedFile(name, new URL(href, dayUrl).toString()));
    }
    return out;
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
