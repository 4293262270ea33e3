import { toIsraelIso } from "../../lib/time.ts";
import { israelOffsetForLocal } from "./israel-offset.ts";
import { detach } from "../load/detach.ts";

const MIN_YEAR = 2000;
const MAX_YEAR = 2100;

const pad = (n: number) => (n < 10 ? "0" + n : "" + n);
const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A naive Israel wall time as ISO 8601 with that instant's offset (+02:00 or +03:00), or null
 * when out of range (years outside 2000–2100 are placeholders like `1899-12-30`, `0001-01-01`).
 *
 * @example israelLocalIso(2026, 8, 24, 3, 0, 0) // "2026-08-24T03:00:00+03:00"
 */
export function israelLocalIso(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): string | null {
  if (!(y >= MIN_YEAR && y <= MAX_YEAR && mo >= 1 && mo <= 12 && d >= 1 && h <= 24 && mi <= 59 && s <= 59)) return null;
  if (d > (mo === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : MONTH_DAYS[mo]!)) return null;
  if (h === 24) {
    if (mi || s) return null;
    // `24:00:00` = end of that day.
    return israelLocalIso(y, mo, d, 23, 59, 59);
  }
  const { offset, skip } = israelOffsetForLocal(y, mo, d, h, mi, s);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const zone = `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  if (skip) {
    // A wall time the spring switch skipped: the same instant read on the summer clock.
    const t = new Date(Date.UTC(y, mo - 1, d, h, mi + skip, s));
    return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${zone}`;
  }
  return `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${zone}`;
}

const YMD = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ]+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const DMY = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?)?$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?$/;
// SQL Server's default text form: `Jun  1 2015 11:59PM`, also cut short: `May 18 2015 12:0`.
const SQL_SERVER = /^([a-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?(?:[.,:]\d+)?\s*([ap]m)?)?$/i;
// .NET's US form: `5/18/2015 11:59:00 PM` — month first, told apart by its AM/PM.
const US_CLOCK = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]m)$/i;
const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };

/** 12-hour clock to 24: `12 AM` is 0, `12 PM` is 12; without a marker the hour stands. */
function hour24(h: number, marker: string | undefined): number {
  if (!marker) return h;
  const pm = marker.toLowerCase() === "pm";
  return h === 12 ? (pm ? 12 : 0) : pm ? h + 12 : h;
}
const CLOCK = /^(\d{1,2}):?(\d{2})(?::?(\d{2}))?(?:[.,]\d+)?\s*([ap]m)?$/i;

const cache = new Map<string, string | null>();

/**
 * Reads the files' date formats — `YYYY-MM-DD HH:MM[:SS]`, `YYYY/MM/DD`, ISO `…T…[.mmm]`,
 * `dd/MM/yyyy HH:mm:ss`, `dd/MM/yy`, `YYYYMMDD[HHMM[SS]]`, SQL Server `May 18 2015 12:0` /
 * `Jun  1 2015 11:59PM`, .NET `5/18/2015 11:59:00 PM` — as Israel local time, with an
 * optional separate `HH:MM[:SS[.mmm]]` (`PromotionStartHour`) used when the date has no time.
 * Junk (`1899-12-30`, `01/01/0001`, text) is null.
 *
 * @example parseIsraelDateTime("2025-01-01", "23:59:00") // "2025-01-01T23:59:00+02:00"
 * @example parseIsraelDateTime("27/07/2022 10:03:26")   // "2022-07-27T10:03:26+03:00"
 */
export function parseIsraelDateTime(date: string | null | undefined, clock?: string | null): string | null {
  if (!date) return null;
  if (!clock) {
    const fast = fastPath(date);
    if (fast !== undefined) return fast;
  }
  const key = clock ? `${date}\u0000${clock}` : date;
  let out = cache.get(key);
  if (out !== undefined) return out;
  out = compute(date.trim(), clock?.trim() || null);
  if (cache.size > 50_000) cache.clear();
  // Keys are copied: a substring would keep its whole file's text alive in this cache.
  cache.set(detach(key), out);
  return out;
}

/** Two ASCII digits at `i`, or -1. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The common price-row shapes without a regex or a cache: `YYYY-MM-DD HH:MM[:SS]` and ISO
 * `YYYY-MM-DDTHH:MM:SS[.mmm]`. Undefined for anything else (the general path decides).
 */
function fastPath(t: string): string | null | undefined {
  const len = t.length;
  if (len < 16 || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(13) !== 58) return undefined;
  const sep = t.charCodeAt(10);
  if (sep !== 32 && sep !== 84 /* T */) return undefined;
  const c1 = two(t, 0);
  const c2 = two(t, 2);
  const mo = two(t, 5);
  const d = two(t, 8);
  const h = two(t, 11);
  const mi = two(t, 14);
  if (c1 < 0 || c2 < 0 || mo < 0 || d < 0 || h < 0 || mi < 0) return undefined;
  let s = 0;
  if (len > 16) {
    if (t.charCodeAt(16) !== 58 || (s = two(t, 17)) < 0) return undefined;
    // Anything after the seconds other than a fraction (an offset, text) takes the general path.
    if (len > 19 && (t.charCodeAt(19) !== 46 || !/^\.\d+$/.test(t.slice(19)))) return undefined;
  }
  return israelLocalIso(c1 * 100 + c2, mo, d, h, mi, s);
}

function compute(date: string, clock: string | null): string | null {
  let y: number, mo: number, d: number;
  let h: number | undefined, mi: number | undefined, s: number | undefined;
  let m = YMD.exec(date);
  if (m) {
    [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
    if (m[4] !== undefined) [h, mi, s] = [+m[4], +m[5]!, +(m[6] ?? 0)];
    if (m[7]) {
      // An explicit offset: an instant, shown in Israel time.
      const instant = new Date(`${y}-${pad(mo)}-${pad(d)}T${pad(h ?? 0)}:${pad(mi ?? 0)}:${pad(s ?? 0)}${m[7].length === 5 ? m[7].slice(0, 3) + ":" + m[7].slice(3) : m[7]}`);
      return Number.isNaN(instant.getTime()) || y < MIN_YEAR || y > MAX_YEAR ? null : toIsraelIso(instant);
    }
  } else if ((m = DMY.exec(date))) {
    [d, mo, y] = [+m[1]!, +m[2]!, +m[3]!];
    if (m[3]!.length === 2) y += 2000;
    if (m[4] !== undefined) [h, mi, s] = [+m[4], +m[5]!, +(m[6] ?? 0)];
  } else if ((m = COMPACT.exec(date))) {
    [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
    if (m[4] !== undefined) [h, mi, s] = [+m[4], +m[5]!, +(m[6] ?? 0)];
  } else if ((m = SQL_SERVER.exec(date)) && MONTHS[m[1]!.toLowerCase()]) {
    [y, mo, d] = [+m[3]!, MONTHS[m[1]!.toLowerCase()]!, +m[2]!];
    // The form always ends in AM/PM; without it the value was cut to its column (`12:0` of
    // `12:00AM`): read as AM, so `12:0` is midnight, the usual start of a promotion.
    if (m[4] !== undefined) [h, mi, s] = [hour24(+m[4], m[7] ?? "am"), +m[5]!, +(m[6] ?? 0)];
  } else if ((m = US_CLOCK.exec(date))) {
    [mo, d, y] = [+m[1]!, +m[2]!, +m[3]!];
    [h, mi, s] = [hour24(+m[4]!, m[7]), +m[5]!, +(m[6] ?? 0)];
  } else {
    return null;
  }
  if (h === undefined && clock) {
    const c = CLOCK.exec(clock);
    if (c) [h, mi, s] = [hour24(+c[1]!, c[4]), +c[2]!, +(c[3] ?? 0)];
  }
  return israelLocalIso(y, mo, d, h ?? 0, mi ?? 0, s ?? 0);
}

/** A date a promotion file gave: its instant, or that it gave none, or a value that could not be read. */
export interface PublishedTime {
  /** ISO 8601 with the Israel offset; null when the file gave no date or a placeholder. */
  value: string | null;
  /** The raw text when it is neither a date this reader knows nor a placeholder. */
  unreadable: string | null;
}

/**
 * Reads a promotion's start or end like {@link parseIsraelDateTime}, but tells a missing date or
 * a placeholder (a year before 2000 or after 2100: `1899-12-30`, `01/01/0001`, `9999-12-31` —
 * open-ended) from a value that cannot be read, so that such a promotion is never served as active.
 *
 * @example readPublishedTime("May 18 2015 12:0")   // { value: "2015-05-18T00:00:00+03:00", unreadable: null }
 * @example readPublishedTime("9999-12-31")         // { value: null, unreadable: null }
 * @example readPublishedTime("18 במאי 2015")        // { value: null, unreadable: "18 במאי 2015" }
 */
export function readPublishedTime(date: string | null | undefined, clock?: string | null): PublishedTime {
  const text = date?.trim();
  if (!text) return { value: null, unreadable: null };
  const value = parseIsraelDateTime(text, clock);
  if (value !== null) return { value, unreadable: null };
  const year = /(?:^|\D)(\d{4})(?:\D|$)/.exec(text);
  if (year && (+year[1]! < MIN_YEAR || +year[1]! > MAX_YEAR)) return { value: null, unreadable: null };
  return { value: null, unreadable: clock?.trim() ? `${text} ${clock.trim()}` : text };
}
