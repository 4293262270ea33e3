/** Small, forgiving HTML helpers for the portals' server-rendered listings (no DOM needed). */

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/**
 * Decodes the HTML entities of attribute values and text (`&amp;` in signed blob URLs).
 * @example unescapeHtml("a.gz?sv=1&amp;sig=x") // "a.gz?sv=1&sig=x"
 */
export function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === "#") {
      const n = code[1] === "x" || code[1] === "X" ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(n) ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES[code.toLowerCase()] ?? whole;
  });
}

/**
 * Text content of an HTML fragment: tags dropped, entities decoded, whitespace collapsed.
 * @example textOf("<b>שלי ת&quot;א</b>\n ") // 'שלי ת"א'
 */
export function textOf(fragment: string): string {
  return unescapeHtml(fragment.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ").trim();
}

export interface HtmlRow {
  /** Raw inner HTML of each cell. */
  cells: string[];
  /** Decoded href values of the row's links, in order. */
  hrefs: string[];
}

/**
 * The `<tr>` rows of a page that have at least one `<td>`.
 * @example tableRows("<tr><td><a href='/f.gz'>f</a></td></tr>") // [{ cells: ["<a href='/f.gz'>f</a>"], hrefs: ["/f.gz"] }]
 */
export function tableRows(html: string): HtmlRow[] {
  const rows: HtmlRow[] = [];
  for (const [, inner] of html.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)) {
    const cells = [...inner!.matchAll(/<td\b[^>]*>([\s\S]*?)<\/td>/gi)].map((m) => m[1]!);
    if (cells.length === 0) continue;
    rows.push({ cells, hrefs: hrefsOf(inner!) });
  }
  return rows;
}

/**
 * Every `href` value in a fragment, entity-decoded.
 * @example hrefsOf('<a href="x?a=1&amp;b=2">') // ["x?a=1&b=2"]
 */
export function hrefsOf(html: string): string[] {
  return [...html.matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)].map((m) => unescapeHtml(m[1] ?? m[2] ?? ""));
}

/**
 * Last path segment of a URL or path, without the query, percent-decoded.
 * @example lastSegment("https://blob/x/PriceFull%201.gz?sig=1") // "PriceFull 1.gz"
 */
export function lastSegment(urlOrPath: string): string {
  const path = urlOrPath.split(/[?#]/)[0]!;
  const seg = path.split("/").filter(Boolean).pop() ?? "";
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

/**
 * "562.84 KB" / "1.2 MB" / "845 B" / "12345" → bytes (approximate); null when unreadable.
 * @example parseSize("562.84 KB") // 576348
 */
export function parseSize(raw: string | number | null | undefined): number | null {
  if (raw == null) return null;
  if (typeof raw === "number") return Number.isFinite(raw) ? Math.round(raw) : null;
  const m = raw.trim().replace(",", "").match(/^([\d.]+)\s*(b|bytes?|kb|mb|gb)?$/i);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? "b").toLowerCase();
  const mult = unit.startsWith("k") ? 1024 : unit.startsWith("m") ? 1024 ** 2 : unit.startsWith("g") ? 1024 ** 3 : 1;
  return Number.isFinite(n) ? Math.round(n * mult) : null;
}
