import { BlockedError, HttpError, NoAnswerError } from "./http.ts";
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

interface LaibBranch {
  number?: number | string;
}

/** Branch listings read at most, when the chain-wide listing comes back empty. */
const MAX_BRANCHES = 300;

/**
 * Laib catalog (`laibcatalog.co.il`, formerly matrixcatalog; the `/<folder>/index.html` SPA reads
 * the same API): `GET /webapi/api/getfiles?edi=<chain code>` → JSON `[{branchNumber, fileName,
 * fileType, fileDate, fileSize "562.84 KB"}]`, one call per chain code (Victory and Mahsanei
 * HaShuk publish under two), de-duplicated by name (the portal repeats files across branches).
 * When a code's listing is empty, its branches (`getbranches?edi=`) are listed one by one
 * (`&branchNumber=N`), as the SPA does. Download `GET /webapi/<chain code>/<fileName>`; a file
 * listed under a secondary code that answers 404 there is asked for under the primary code.
 *
 * @example new LaibAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class LaibAdapter implements PortalAdapter {
  readonly family = "laib" as const;

  constructor(private readonly ctx: AdapterContext) {}

  private api<T>(path: string): Promise<T> {
    return this.ctx.http.json<T>(joinUrl(this.ctx.portal.base_url, path), { headers: { accept: "application/json" } });
  }

  private async filesOf(code: string): Promise<LaibRow[]> {
    const edi = encodeURIComponent(code);
    const rows = await this.api<LaibRow[] | null>(`/webapi/api/getfiles?edi=${edi}`);
    if (Array.isArray(rows) && rows.length > 0) return rows;
    const branches = await this.api<LaibBranch[] | null>(`/webapi/api/getbranches?edi=${edi}`);
    const out: LaibRow[] = [];
    for (const branch of (Array.isArray(branches) ? branches : []).slice(0, MAX_BRANCHES)) {
      if (branch?.number == null || branch.number === "") continue;
      const more = await this.api<LaibRow[] | null>(`/webapi/api/getfiles?edi=${edi}&branchNumber=${encodeURIComponent(String(branch.number))}`);
      if (Array.isArray(more)) out.push(...more);
    }
    return out;
  }

  async list(_options: ListOptions): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const seen = new Map<string, ListedFile>();
    const errors: string[] = [];
    const causes: unknown[] = [];
    for (const code of this.ctx.chain.chain_codes) {
      let rows: LaibRow[];
      try {
        rows = await this.filesOf(code);
      } catch (error) {
        causes.push(error);
        errors.push(`${code}: ${(error as Error).message}`);
        continue;
      }
      for (const row of rows) {
        const name = (row?.fileName ?? "").trim();
        if (!name || seen.has(name)) continue;
        seen.set(
          name,
          listedFile(name, joinUrl(base, `/webapi/${encodeURIComponent(code)}/${encodeURIComponent(name)}`), {
            size: parseSize(row.fileSize ?? null),
            sizeExact: false,
            portalTime: row.fileDate ?? null,
            extra: { code },
          }),
        );
      }
    }
    // Every code failing is a portal failure; one of two failing is not.
    if (seen.size === 0 && errors.length === this.ctx.chain.chain_codes.length) {
      // A refusal or silence on every code is the portal's answer to this address (see fetch-chains).
      const message = `laib: ${errors.join("; ")}`;
      if (causes.every((c) => c instanceof BlockedError)) throw new BlockedError(message, (causes[0] as BlockedError).status);
      if (causes.every((c) => c instanceof NoAnswerError)) throw new NoAnswerError(message);
      throw new HttpError(message, null, false);
    }
    return [...seen.values()];
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    const res = await this.ctx.http.send(file.url, {}, signal);
    const primary = this.ctx.chain.chain_codes[0]!;
    if (res.status !== 404 || !file.extra?.code || file.extra.code === primary) return res;
    await res.body?.cancel().catch(() => {});
    return this.ctx.http.send(joinUrl(this.ctx.portal.base_url, `/webapi/${encodeURIComponent(primary)}/${encodeURIComponent(file.fileName)}`), {}, signal);
  }
}
