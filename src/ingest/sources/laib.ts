import { HttpError } from "./http.ts";
import { joinUrl, listedFile } from "./listing.ts";
import { parseSize } from "./html.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

interface LaibRow {
  branchNumber?: number | string;
  fileName?: string;
  fileType?: string;
  fileDate?: string;
  fileSize?: string;
}

/**
 * Laib catalog (`laibcatalog.co.il`, formerly matrixcatalog): `GET /webapi/api/getfiles?edi=<chain code>`
 * → JSON `[{branchNumber, fileName, fileType, fileDate, fileSize "562.84 KB"}]`, one call per
 * chain code (Victory and Mahsanei HaShuk publish under two), de-duplicated by name (the portal
 * repeats files across branches); download `GET /webapi/<chain code>/<fileName>`.
 *
 * @example new LaibAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class LaibAdapter implements PortalAdapter {
  readonly family = "laib" as const;

  constructor(private readonly ctx: AdapterContext) {}

  async list(_options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const seen = new Map<string, ListedFile>();
    const errors: string[] = [];
    for (const code of this.ctx.chain.chain_codes) {
      let rows: LaibRow[] | null;
      try {
        rows = await this.ctx.http.json<LaibRow[] | null>(joinUrl(base, `/webapi/api/getfiles?edi=${encodeURIComponent(code)}`), {
          headers: { accept: "application/json" },
        });
      } catch (error) {
        errors.push(`${code}: ${(error as Error).message}`);
        continue;
      }
      for (const row of Array.isArray(rows) ? rows : []) {
        const name = (row.fileName ?? "").trim();
        if (!name || seen.has(name)) continue;
        seen.set(
          name,
          listedFile(name, joinUrl(base, `/webapi/${encodeURIComponent(code)}/${encodeURIComponent(name)}`), {
            size: parseSize(row.fileSize ?? null),
            sizeExact: false,
            portalTime: row.fileDate ?? null,
          }),
        );
      }
    }
    // Every code failing is a portal failure; one of two failing is not.
    if (seen.size === 0 && errors.length === this.ctx.chain.chain_codes.length) throw new HttpError(`laib: ${errors.join("; ")}`, null, false);
    return [...seen.values()];
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
