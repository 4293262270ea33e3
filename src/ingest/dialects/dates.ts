import { toIsraelIso } from "../../time.ts";
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
const CLOCK = /^(\d{1,2}):?(\d{2})(?::?(\d{2}))?(?:[.,]\d+)?$/;

const cache = new Map<string, string | null>();

/**
 * Reads the files' date formats — `YYYY-MM-DD HH:MM[:SS]`, `YYYY/MM/DD`, ISO `…T…[.mmm]`,
 * `dd/MM/yyyy HH:mm:ss`, `dd/MM/yy`, `YYYYMMDD[HHMM[SS]]` — as Israel local time, with an
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
  } else {
    return null;
  }
  if (h === undefined && clock) {
    const c = CLOCK.exec(clock);
    if (c) [h, mi, s] = [+c[1]!, +c[2]!, +(c[3] ?? 0)];
  }
  return israelLocalIso(y, mo, d, h ?? 0, mi ?? 0, s ?? 0);
}
