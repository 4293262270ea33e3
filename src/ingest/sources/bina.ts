import { HttpError } from "./http.ts";
import { dmy, joinUrl, listedFile } from "./listing.ts";
import { jsonOrFile } from "./peek.ts";
import { checkPortalLink } from "./link-guard.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

interface BinaRow {
  FileNm?: string;
  Store?: string;
  TypeFile?: string;
  DateFile?: string;
  FileSize?: string | number;
}

// WFileType: 1 stores, 2 price, 3 promo, 4 pricefull, 5 promofull. One request per type keeps
// each answer under the portal's cap of 1000 rows.
const FULL_TYPES = [1, 4, 5];
const DELTA_TYPES = [2, 3];

/**
 * Bina portals (`<prefix>.binaprojects.com`): `POST /MainIO_Hok.aspx` (WFileType, WStore,
 * WDate dd/MM/yyyy) → JSON `[{FileNm, Store, TypeFile, DateFile}]`; download through
 * `/Download.aspx?FileNm=<name>` → `[{"SPath": url}]` → the file, or `/Download/<name>`
 * directly when the indirection fails (an SPath off the portal's site or to a private address is
 * refused: link-guard.ts). Payloads are often ZIP archives under a `.gz` name;
 * the importer sniffs magic bytes.
 *
 * @example new BinaAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class BinaAdapter implements PortalAdapter {
  readonly family = "bina" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  async list(options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const types = options.deltas ? [...FULL_TYPES, ...DELTA_TYPES] : FULL_TYPES;
    const seen = new Map<string, ListedFile>();
    for (const type of types) {
      const rows = await this.ctx.http.json<BinaRow[] | null>(joinUrl(base, "/MainIO_Hok.aspx"), {
        method: "POST",
        form: { WStore: "", WDate: dmy(options.date), WFileType: type },
        headers: { accept: "application/json, text/javascript, */*" },
      });
      for (const row of Array.isArray(rows) ? rows : []) {
        const name = (row.FileNm ?? "").trim();
        if (!name || seen.has(name)) continue;
        seen.set(name, listedFile(name, joinUrl(base, "/Download.aspx?FileNm=" + encodeURIComponent(name)), { portalTime: row.DateFile ?? null }));
      }
    }
    return [...seen.values()];
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    const { http, portal } = this.ctx;
    const res = await http.send(file.url, {}, signal);
    if (res.ok) {
      // Download.aspx answers `[{"SPath": url}]` (often labelled text/html); some portals answer the file itself.
      const peeked = await jsonOrFile(res);
      if ("file" in peeked) return peeked.file;
      const body = peeked.json as { SPath?: unknown }[] | { SPath?: unknown } | null;
      const target = Array.isArray(body) ? body[0]?.SPath : body?.SPath;
      if (typeof target !== "string" || !target) throw new HttpError(`bina: no SPath for ${file.fileName}`, null, false);
      return http.send(checkPortalLink(target, file.url, portal.base_url), {}, signal);
    }
    await res.body?.cancel().catch(() => {});
    if (res.status >= 500) return res;
    return http.send(joinUrl(portal.base_url, "/Download/" + encodeURIComponent(file.fileName)), {}, signal);
  }
}
