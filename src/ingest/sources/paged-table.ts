import type { HttpClient } from "./http.ts";
import { lastSegment, parseSize, tableRows, textOf, type HtmlRow } from "./html.ts";
import { parseListingName } from "./file-name.ts";
import { listedFile } from "./listing.ts";
import type { ListedFile } from "./types.ts";
import { assertListing } from "./not-listing.ts";

/**
 * One row of a server-rendered file table as a ListedFile: the link is the row's first href
 * matching `linkPattern` — or, in a row with a single link and a cell naming a price file, that
 * link whatever its shape (City Market's links are opaque); the name is the link's last segment
 * when that is a price-file name, else the cell that reads as one (Hazi Hinam and City Market
 * show it without its extension).
 * @example rowToFile(tableRows(html)[0], pageUrl, /downloadfile/i)?.fileName
 */
export function rowToFile(row: HtmlRow, pageUrl: string, linkPattern: RegExp): ListedFile | null {
  const cells = row.cells.map(textOf);
  const named = cells.some((c) => /^[\w.-]+$/.test(c) && parseListingName(c).type !== null);
  const links = row.hrefs.filter((h) => h && !h.startsWith("#") && !/^javascript:/i.test(h));
  const href = links.find((h) => linkPattern.test(h)) ?? (named && links.length === 1 ? links[0] : undefined);
  if (!href) return null;
  // The link's own name when it is a price-file name (it keeps the extension), else the cell naming the file.
  const fromLink = lastSegment(href);
  const fromCell = cells.find((c) => /^[\w.-]+$/.test(c) && parseListingName(c).type !== null);
  const name = parseListingName(fromLink).type !== null ? fromLink : (fromCell ?? fromLink);
  if (!name) return null;
  const sizeCell = cells.find((c) => /^[\d.,]+\s*(b|kb|mb|gb)$/i.test(c));
  const time = cells.find((c) => /\d{1,2}\/\d{1,2}\/\d{4}|\d{4}-\d{2}-\d{2}/.test(c)) ?? null;
  return listedFile(name, new URL(href, pageUrl).toString(), { size: parseSize(sizeCell ?? null), sizeExact: false, portalTime: time });
}

/**
 * Walks `?…&p=N` pages until one brings no file not seen before (the portals repeat the last
 * page or answer an empty table past the end). A first page without a table is a NotListingError.
 * @example await walkPages(http, (p) => `${base}?d=2026-11-22&p=${p}`, /\.gz(\?|$)/)
 */
export async function walkPages(http: HttpClient, pageUrl: (page: number) => string, linkPattern: RegExp, maxPages = 200): Promise<ListedFile[]> {
  const seen = new Map<string, ListedFile>();
  for (let page = 1; page <= maxPages; page++) {
    const url = pageUrl(page);
    const { text } = await http.text(url);
    // A day with no files still has the table (with no rows); a first page with none is not a listing.
    if (page === 1) assertListing(url, text, /<table\b/i);
    let fresh = 0;
    for (const row of tableRows(text)) {
      const file = rowToFile(row, url, linkPattern);
      if (!file || seen.has(file.fileName)) continue;
      seen.set(file.fileName, file);
      fresh++;
    }
    if (fresh === 0) break;
  }
  return [...seen.values()];
}
