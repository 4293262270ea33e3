import { HttpError } from "./http.ts";
import { joinUrl, listedFile } from "./listing.ts";
import { lastSegment, parseSize, tableRows, textOf } from "./html.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";
import type { FileType } from "../records.ts";
import { assertListing } from "./not-listing.ts";

// catID of /FileObject/UpdateCategory.
const CATEGORY: Record<FileType, number> = { price: 1, pricefull: 2, promo: 3, promofull: 4, stores: 5 };
const MAX_PAGES = 200;
/** Signed blob links live a few minutes: a link older than this is fetched again before use. */
export const SHUFERSAL_LINK_MAX_AGE_MS = 60_000;

/**
 * Shufersal (`prices.shufersal.co.il`): visit `/` first for the session cookies (the listing
 * answers 403 without them), then page through `GET /FileObject/UpdateCategory?catID=&storeId=0&sort=Time&sortdir=DESC&page=N`
 * (an HTML table in `#gridContainer`, newest first as asked, link in the first cell). Links are Azure-blob
 * signed URLs, HTML-escaped (`&amp;`), that expire within minutes, so a download uses its link
 * right after listing: a link older than SHUFERSAL_LINK_MAX_AGE_MS is replaced by listing the
 * store's page of that category again just before the download (one re-listing shared by the
 * store's files), and a download answering 403 (expired) gets the same treatment.
 *
 * @example new ShufersalAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class ShufersalAdapter implements PortalAdapter {
  readonly family = "shufersal" as const;
  readonly listsByDate = true;
  private warmed = false;
  /** Fresh links per `catId:storeId`, shared by the downloads of one store. */
  private readonly refreshing = new Map<string, { at: number; files: Promise<Map<string, ListedFile>> }>();

  constructor(
    private readonly ctx: AdapterContext,
    private readonly clock: () => number = Date.now,
  ) {}

  private async warm(force = false): Promise<void> {
    if (this.warmed && !force) return;
    await this.ctx.http.text(joinUrl(this.ctx.portal.base_url, "/"));
    this.warmed = true;
  }

  private async page(catId: number, storeId: string, page: number): Promise<ListedFile[]> {
    // Newest first, asked for explicitly (the early stop in `category` relies on it; 2026 scrapers send the same).
    const url = joinUrl(this.ctx.portal.base_url, `/FileObject/UpdateCategory?catID=${catId}&storeId=${encodeURIComponent(storeId)}&sort=Time&sortdir=DESC&page=${page}`);
    let res;
    try {
      res = await this.ctx.http.text(url);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 403) throw error;
      await this.warm(true); // cookies expired: visit the front page again
      res = await this.ctx.http.text(url);
    }
    // Past the last page the portal answers an empty table: a page with no table at all is not a listing.
    if (page === 1) assertListing(url, res.text, /<table\b|gridContainer/i);
    const listedAt = String(this.clock());
    const out: ListedFile[] = [];
    for (const row of tableRows(res.text)) {
      const link = row.hrefs.find((h) => /^https?:\/\//i.test(h) && /\.(gz|xml|zip)(\?|$)/i.test(h.split("#")[0]!));
      if (!link) continue;
      const name = lastSegment(link);
      const cells = row.cells.map(textOf);
      const size = cells.map((c) => parseSize(c.replace(/\s+/g, " "))).find((n, i) => n != null && /[kmg]?b$/i.test(cells[i]!)) ?? null;
      out.push(listedFile(name, link, { size, sizeExact: false, extra: { catId: String(catId), listedAt } }));
    }
    return out;
  }

  /**
   * Every file of a category (all stores, or one). The listing is asked newest first: with
   * `since` (a date), paging stops after a page whose dated files are all older — every later
   * page is older still.
   */
  private async category(catId: number, storeId = "0", since?: string): Promise<ListedFile[]> {
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
      const dated = rows.filter((r) => r.time);
      if (since && dated.length > 0 && dated.every((r) => r.time!.slice(0, 10) < since)) break;
    }
    return [...seen.values()];
  }

  async list(options: ListOptions): Promise<ListedFile[]> {
    await this.warm();
    const types: FileType[] = options.deltas ? ["stores", "pricefull", "promofull", "price", "promo"] : ["stores", "pricefull", "promofull"];
    const out: ListedFile[] = [];
    // Stores files appear only when the stores change: that category is read whole.
    for (const type of types) out.push(...(await this.category(CATEGORY[type], "0", type === "stores" ? undefined : options.date)));
    return out;
  }

  /** The store's current links of a category, listed at most once per half link lifetime. */
  private freshLinks(catId: number, storeId: string): Promise<Map<string, ListedFile>> {
    const key = `${catId}:${storeId}`;
    const known = this.refreshing.get(key);
    if (known && this.clock() - known.at < SHUFERSAL_LINK_MAX_AGE_MS / 2) return known.files;
    const files = this.category(catId, storeId).then((list) => new Map(list.map((f) => [f.fileName, f])));
    files.catch(() => this.refreshing.delete(key));
    this.refreshing.set(key, { at: this.clock(), files });
    return files;
  }

  private async refresh(file: ListedFile): Promise<void> {
    const catId = Number(file.extra?.catId ?? (file.type ? CATEGORY[file.type] : 0));
    const fresh = (await this.freshLinks(catId, file.storeCode ?? "0")).get(file.fileName);
    if (!fresh) throw new HttpError(`shufersal: ${file.fileName} is no longer listed`, null, false);
    file.url = fresh.url;
    file.extra = { ...file.extra, listedAt: fresh.extra?.listedAt ?? String(this.clock()) };
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    const age = this.clock() - Number(file.extra?.listedAt ?? 0);
    if (age > SHUFERSAL_LINK_MAX_AGE_MS) await this.refresh(file);
    const res = await this.ctx.http.send(file.url, {}, signal);
    if (res.status !== 403 && res.status !== 404) return res;
    await res.body?.cancel().catch(() => {});
    // The signed link expired after all: list the store's page of that category again.
    this.refreshing.delete(`${file.extra?.catId}:${file.storeCode ?? "0"}`);
    await this.refresh(file);
    return this.ctx.http.send(file.url, {}, signal);
  }
}
