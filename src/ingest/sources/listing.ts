import { israelLocalToDate, toIsraelIso } from "../../lib/time.ts";
import { parseListingName } from "./file-name.ts";
import type { ListedFile } from "./types.ts";

/**
 * Builds a ListedFile from a published name and a download URL; the name's timestamp wins
 * over the portal's own time column.
 *
 * @example listedFile("Stores7290058140886-202211012005.xml", "https://x/file/d/Stores7290058140886-202211012005.xml").type // "stores"
 */
export function listedFile(
  fileName: string,
  url: string,
  more: { size?: number | null; sizeExact?: boolean; portalTime?: string | null; extra?: Record<string, string> } = {},
): ListedFile {
  const name = parseListingName(fileName);
  return {
    fileName,
    type: name.type,
    chainCode: name.chainCode,
    storeCode: name.storeCode,
    time: name.time ?? parsePortalTime(more.portalTime ?? null),
    size: more.size ?? null,
    sizeExact: more.sizeExact ?? false,
    isNullPlaceholder: name.isNullPlaceholder,
    url,
    ...(more.extra ? { extra: more.extra } : {}),
  };
}

/**
 * A portal's time column as ISO 8601 in Israel time: `2026-11-22 05:30:00`, `2026-11-22T05:30`,
 * `22/11/2026 05:30`, `05:30 22/11/2026`; null when unreadable.
 * @example parsePortalTime("06:00 22/11/2026") // "2026-11-22T06:00:00+02:00"
 */
export function parsePortalTime(raw: string | null): string | null {
  if (!raw) return null;
  const s = raw.trim();
  let m = s.match(/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?/);
  if (m) return iso(+m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  m = s.match(/^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?/);
  if (m) return iso(+m[3]!, +m[2]!, +m[1]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  m = s.match(/^(\d{1,2}):(\d{2})(?::(\d{2}))?\s+(\d{1,2})\/(\d{1,2})\/(\d{4})$/);
  if (m) return iso(+m[6]!, +m[5]!, +m[4]!, +m[1]!, +m[2]!, +(m[3] ?? 0));
  return null;
}

function iso(y: number, mo: number, d: number, h: number, mi: number, s: number): string | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  return toIsraelIso(israelLocalToDate(y, mo, d, h, mi, s));
}

/**
 * An ISO date as the Bina and Super-Pharm forms want it.
 * @example dmy("2026-11-22") // "22/11/2026"
 */
export function dmy(date: string): string {
  const [y, m, d] = date.split("-");
  return `${d}/${m}/${y}`;
}

/**
 * An ISO date as a PublishPrice day folder.
 * @example compact("2026-11-22") // "20261122"
 */
export function compact(date: string): string {
  return date.replaceAll("-", "");
}

/**
 * The day before an ISO date.
 * @example previousDay("2026-03-01") // "2026-02-28"
 */
export function previousDay(date: string): string {
  const t = Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10)) - 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * Joins a base URL and a path without doubling or dropping slashes.
 * @example joinUrl("https://x.co.il/", "/login") // "https://x.co.il/login"
 */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}
