import { HttpError } from "./http.ts";
import { joinUrl, listedFile } from "./listing.ts";
import { lastSegment, parseSize, tableRows, textOf } from "./html.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";
import type { FileType } from "../records.ts";

// catID of /FileObject/UpdateCategory.
const CATEGORY: Record<FileType, number> = { price: 1, pricefull: 2, promo: 3, promofull: 4, stores: 5 };
const MAX_PAGES = 200;

/**
 * Shufersal (`prices.shufersal.co.il`): visit `/` first for the session cookies (the listing
 * answers 403 without them), then page through `GET /FileObject/UpdateCategory?catID=&storeId=0&page=N`
 * (an HTML table). Links are Azure-blob signed URLs, HTML-escaped (`&amp;`), that expire within
 * minutes: when a download answers 403 the store's page is listed again for a fresh link.
 *
 * @example new ShufersalAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class ShufersalAdapter implements PortalAdapter {
  readonly family = "shufersal" as const;
  private warmed = false;

  constructor(private readonly ctx: AdapterContext) {}

  private async warm(force = false): Promise<void> {
    if (this.warmed && !force) return;
    await this.ctx.http.text(joinUrl(this.ctx.portal.base_url, "/"));
    this.warmed = true;
  }

  private async page(catId: number, storeId: string, page: number): Promise<ListedFile[]> {
    const url = joinUrl(this.ctx.portal.base_url, `/FileObject/UpdateCategory?catID=${catId}&storeId=${encodeURIComponent(storeId)}&page=${page}`);
    let res;
    try {
      res = await this.ctx.http.text(url);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 403) throw error;
      await this.warm(true); // cookies expired: visit the front page again
      res = await this.ctx.http.text(url);
    }
    const out: ListedFile[] = [];
    for (const row of tableRows(res.text)) {
      const link = row.hrefs.find((h) => /^https?:\/\//i.test(h) && /\.(gz|xml|zip)(\?|$)/i.test(h.split("#")[0]!));
      if (!link) continue;
      const name = lastSegment(link);
      const cells = row.cells.map(textOf);
      const size = cells.map((c) => parseSize(c.replace(/\s+/g, " "))).find((n, i) => n != null && /[kmg]?b$/i.test(cells[i]!)) ?? null;
      const time = cells.find((c) => /\d{1,2}\/\d{1,2}\/\d{4}/.test(c) || /^\d{4}-\d{2}-\d{2}/.test(c)) ?? null;
      out.push(listedFile(name, link, { size, sizeExact: false, portalTime: time, extra: { catId: String(catId) } }));
    }
    return out;
  }

  private async category(catId: number, storeId = "0"): Promise<ListedFile[]> {
    const seen = new Map<string, ListedFile>();
    for (let page = 1; page <= MAX_PAGES; page++) {
      const rows = await this.page(catId, storeId, page);
      let fresh = 0;
      for (const row of rows) {
        if (seen.has(row.fileName)) continue;
        seen.set(row.fileName, row);
        fresh++;
      }
      if (fresh === 0) break; // past the last page the portal repeats it or answers an empty table
    }
    return [...seen.values()];
  }

  async list(options: ListOptions): Promise<ListedFile[]> {
    await this.warm();
    const types: FileType[] = options.deltas ? ["stores", "pricefull", "promofull", "price", "promo"] : ["stores", "pricefull", "promofull"];
    const out: ListedFile[] = [];
    for (const type of types) out.push(...(await this.category(CATEGORY[type])));
    return out;
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    const res = await this.ctx.http.send(file.url, {}, signal);
    if (res.status !== 403 && res.status !== 404) return res;
    await res.body?.cancel().catch(() => {});
    // The signed link expired: list the store's page of that category again for a fresh one.
    const catId = Number(file.extra?.catId ?? (file.type ? CATEGORY[file.type] : 0));
    const fresh = (await this.category(catId, file.storeCode ?? "0")).find((f) => f.fileName === file.fileName);
    if (!fresh) throw new HttpError(`shufersal: ${file.fileName} is no longer listed`, null, false);
    file.url = fresh.url;
    return this.ctx.http.send(fresh.url, {}, signal);
  }
}
