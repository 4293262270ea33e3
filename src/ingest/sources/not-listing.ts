import { redact } from "./http.ts";
import { textOf } from "./html.ts";
import { PortalError } from "./types.ts";

/**
 * Where a file listing was expected the portal answered a page with none of its structure (no
 * table, no grid, no day links): a challenge page without the known markers, a maintenance or an
 * error page. Read as "no files" it would hide a chain for days; the chain reads `failing`, with
 * this as its reason.
 */
export class NotListingError extends PortalError {
  override name = "NotListingError";
}

/** A page in a few words: its title, else the start of its text. */
function gist(page: string): string {
  const title = textOf(page.match(/<title\b[^>]*>([\s\S]*?)<\/title>/i)?.[1] ?? "");
  const text = title || textOf(page.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " "));
  return text ? JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text) : "an empty page";
}

/**
 * Throws NotListingError unless `page` shows `structure` (the listing's table, grid or links,
 * present even on a day with no files).
 * @example assertListing(url, text, /<table\b|data-total-rows=/i)
 */
export function assertListing(url: string, page: string, structure: RegExp): void {
  if (structure.test(page)) return;
  throw new NotListingError(`the portal answered a page that is not a file listing (${gist(page)}) at ${redact(url)}`);
}
