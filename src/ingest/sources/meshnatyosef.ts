import { HttpError } from "./http.ts";
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
 * JSON `[{name, url, type?, date?}]`; each `url` is the file. The chain does not publish promos.
 *
 * @example new MeshnatYosefAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class MeshnatYosefAdapter implements PortalAdapter {
  readonly family = "meshnatyosef" as const;

  constructor(private readonly ctx: AdapterContext) {}

  async list(_options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const rows = await this.ctx.http.json<Entry[] | { files?: Entry[] }>(joinUrl(base, "/"), { headers: { accept: "application/json" } });
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

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
