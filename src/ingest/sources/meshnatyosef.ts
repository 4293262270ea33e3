import { HttpError } from "./http.ts";
import { hrefsOf, lastSegment } from "./html.ts";
import { parseListingName } from "./file-name.ts";
import { joinUrl, listedFile } from "./listing.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

interface Entry {
  name?: string;
  url?: string;
  type?: string;
  date?: string;
}

/**
 * Meshnat Yosef / K.T. (`list-files.w5871031-kt.workers.dev`): a Cloudflare worker answering
 * JSON `[{name, url, type?, date?}]`; each `url` is the file. The site gov.il lists
 * (`chp-kt.pages.dev`, the registry's fallback) is read as a page of links to price files.
 * The chain does not publish promos.
 *
 * @example new MeshnatYosefAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class MeshnatYosefAdapter implements PortalAdapter {
  readonly family = "meshnatyosef" as const;

  constructor(private readonly ctx: AdapterContext) {}

  async list(_options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const page = await this.ctx.http.text(joinUrl(base, "/"), { headers: { accept: "application/json, text/html;q=0.8" } });
    const body = page.text.replace(/^\uFEFF/, "");
    if (!/^\s*[[{]/.test(body)) return this.links(body, page.url || joinUrl(base, "/"));
    let rows: Entry[] | { files?: Entry[] } | null;
    try {
      rows = JSON.parse(body);
    } catch {
      throw new HttpError(`meshnatyosef: not JSON from ${base}`, null, false);
    }
    const entries = Array.isArray(rows) ? rows : Array.isArray(rows?.files) ? rows.files : null;
    if (!entries) throw new HttpError("meshnatyosef: listing is not a JSON array", null, false);
    const out: ListedFile[] = [];
    for (const e of entries) {
      const name = (e?.name ?? "").trim();
      if (!name || !e.url) continue;
      out.push(listedFile(name, new URL(e.url, base.endsWith("/") ? base : base + "/").toString(), { portalTime: e.date ?? null }));
    }
    return out;
  }

  /** An HTML page: its links whose last segment is a price-file name; none is a failure (an error or challenge page). */
  private links(html: string, pageUrl: string): ListedFile[] {
    const out = new Map<string, ListedFile>();
    for (const href of hrefsOf(html)) {
      const name = lastSegment(href);
      if (name && !out.has(name) && parseListingName(name).type !== null) out.set(name, listedFile(name, new URL(href, pageUrl).toString()));
    }
    if (out.size === 0) throw new HttpError(`meshnatyosef: not JSON and no file links from ${this.ctx.portal.base_url}`, null, false);
    return [...out.values()];
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
