import { compact, joinUrl, listedFile, previousDay } from "./listing.ts";
import { hrefsOf, lastSegment } from "./html.ts";
import { PortalError, type AdapterContext, type ListedFile, type ListOptions, type PortalAdapter } from "./types.ts";

interface FileRow {
  name?: string;
  size?: number | string;
}

/**
 * Reads the file list a PublishPrice page embeds in its script: `const path = 'YYYYMMDD'`
 * and `const files = [{name, size}, …]` (JSON or a JavaScript literal). Older pages carried
 * `<a href>` strings in `files_html`; those are read as a fallback.
 *
 * @example readPublishPricePage("<script>const path = '20261122'; const files = [{\"name\":\"a.gz\",\"size\":1}];</script>")
 * // { path: "20261122", files: [{ name: "a.gz", size: 1 }] }
 */
export function readPublishPricePage(html: string): { path: string | null; files: FileRow[] } {
  const path = html.match(/const\s+path\s*=\s*['"]\.?\/?(\d{8})['"]/)?.[1] ?? null;
  const literal = html.match(/const\s+files\s*=\s*(\[[\s\S]*?\])\s*;/)?.[1];
  if (literal) {
    for (const candidate of [literal, jsLiteralToJson(literal)]) {
      try {
        const rows = JSON.parse(candidate) as FileRow[];
        if (Array.isArray(rows)) return { path, files: rows.filter((r) => r && typeof r.name === "string") };
      } catch {
        // try the next reading
      }
    }
  }
  const legacy = html.match(/const\s+files_html\s*=\s*\[([\s\S]*?)\]\s*;/)?.[1];
  if (legacy) {
    const names = hrefsOf(legacy.replace(/\\"/g, '"')).map(lastSegment).filter(Boolean);
    return { path, files: names.map((name) => ({ name })) };
  }
  return { path, files: [] };
}

/** `[{name: 'a', size: 1,}]` → `[{"name": "a", "size": 1}]`. */
function jsLiteralToJson(js: string): string {
  return js
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_m, s: string) => JSON.stringify(s.replace(/\\'/g, "'")))
    .replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":')
    .replace(/,\s*([}\]])/g, "$1");
}

/**
 * PublishPrice portals (Carrefour / Yeinot Bitan / Mega at `prices.carrefour.co.il`, Quik): one
 * page per day folder (`/?p=./YYYYMMDD`), files under `/<YYYYMMDD>/<name>`. "Today" fills
 * gradually overnight, so the day before is listed too; the policy picks the newest per store.
 *
 * @example new PublishPriceAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class PublishPriceAdapter implements PortalAdapter {
  readonly family = "publishprice" as const;
  readonly listsByDate = true;

  constructor(private readonly ctx: AdapterContext) {}

  private async day(date: string): Promise<ListedFile[]> {
    const base = this.ctx.portal.base_url;
    const { text } = await this.ctx.http.text(joinUrl(base, `/?p=./${compact(date)}`));
    const page = readPublishPricePage(text);
    if (!page.path && page.files.length === 0) throw new PortalError("publishprice: no file list in the page");
    const folder = page.path ?? compact(date);
    return page.files.map((row) =>
      listedFile(row.name!.trim(), joinUrl(base, `/${folder}/${encodeURIComponent(row.name!.trim())}`), {
        size: typeof row.size === "number" ? row.size : Number.isFinite(Number(row.size)) ? Number(row.size) : null,
        sizeExact: row.size != null && Number.isFinite(Number(row.size)),
      }),
    );
  }

  async list(options: ListOptions): Promise<ListedFile[]> {
    const today = await this.day(options.date);
    let before: ListedFile[] = [];
    try {
      before = await this.day(previousDay(options.date));
    } catch (error) {
      this.ctx.log("debug", "publishprice: no listing for the day before", { chain: this.ctx.chain.slug, error: (error as Error).message });
    }
    const seen = new Set(today.map((f) => f.fileName));
    return [...today, ...before.filter((f) => !seen.has(f.fileName))];
  }

  download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    return this.ctx.http.send(file.url, {}, signal);
  }
}
