import { israelLocalToDate, toIsraelIso } from "../lib/time.ts";

/**
 * A naive Israel-local wall time, the way the chains write times in names and files. The
 * demo thinks in these; `instant` is the real moment they stand for.
 */
export interface LocalTime {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

export function localOf(date: Date): LocalTime {
  const iso = toIsraelIso(date); // 2026-11-22T05:30:00+02:00
  return {
    y: Number(iso.slice(0, 4)),
    mo: Number(iso.slice(5, 7)),
    d: Number(iso.slice(8, 10)),
    h: Number(iso.slice(11, 13)),
    mi: Number(iso.slice(14, 16)),
    s: Number(iso.slice(17, 19)),
  };
}

export function instant(t: LocalTime): Date {
  return israelLocalToDate(t.y, t.mo, t.d, t.h, t.mi, t.s);
}

/** Wall-clock value as if it were UTC: cheap arithmetic and ordering on local times. */
function naive(t: LocalTime): number {
  return Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi, t.s);
}

function fromNaive(ms: number): LocalTime {
  const d = new Date(ms);
  return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds() };
}

/**
 * Moves by whole minutes of wall-clock time (a DST switch inside the span is ignored: the
 * chains' naive timestamps do the same).
 */
export function addMinutes(t: LocalTime, minutes: number): LocalTime {
  return fromNaive(naive(t) + minutes * 60_000);
}

/** The same wall time `months` later (or earlier); the day is clamped to the month's length. */
export function addMonths(t: LocalTime, months: number): LocalTime {
  const index = t.y * 12 + (t.mo - 1) + months;
  const y = Math.floor(index / 12);
  const mo = (index % 12) + 1;
  const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return { ...t, y, mo, d: Math.min(t.d, last) };
}

/** Milliseconds from b to a in wall-clock time (negative when a is earlier). */
export function compareLocal(a: LocalTime, b: LocalTime): number {
  return naive(a) - naive(b);
}

/** Formats are memoised per LocalTime object: the same change time is written in every store's files. */
function memo(format: (t: LocalTime) => string): (t: LocalTime) => string {
  const cache = new WeakMap<LocalTime, string>();
  return (t) => {
    let text = cache.get(t);
    if (text === undefined) cache.set(t, (text = format(t)));
    return text;
  };
}

const dateOf = (t: LocalTime) => `${t.y}-${pad(t.mo)}-${pad(t.d)}`;
const timeOf = (t: LocalTime) => `${pad(t.h)}:${pad(t.mi)}:${pad(t.s)}`;
const hmOf = (t: LocalTime) => `${pad(t.h)}:${pad(t.mi)}`;

export const fmt = {
  /** 202611220530 */
  stamp12: (t: LocalTime) => `${t.y}${pad(t.mo)}${pad(t.d)}${pad(t.h)}${pad(t.mi)}`,
  /** 20261122 */
  date8: (t: LocalTime) => `${t.y}${pad(t.mo)}${pad(t.d)}`,
  /** 053000 */
  time6: (t: LocalTime) => `${pad(t.h)}${pad(t.mi)}${pad(t.s)}`,
  /** 2026-11-22 */
  date: dateOf,
  /** 05:30:00 */
  time: timeOf,
  /** 05:30 */
  hm: hmOf,
  /** 2026-11-22 05:30:00 */
  dateTime: memo((t: LocalTime) => `${dateOf(t)} ${timeOf(t)}`),
  /** 2026/11/22 05:30 (Laib) */
  slashDateHm: memo((t: LocalTime) => `${t.y}/${pad(t.mo)}/${pad(t.d)} ${hmOf(t)}`),
  /** 22/11/2026 05:30:00 (Laib stores) */
  dmyTime: (t: LocalTime) => `${pad(t.d)}/${pad(t.mo)}/${t.y} ${timeOf(t)}`,
  /** 22/11/26 (Laib stores attribute) */
  dmy2: (t: LocalTime) => `${pad(t.d)}/${pad(t.mo)}/${pad(t.y % 100)}`,
  /** 2026-11-22T05:30:00 (2026 dialect, no offset) */
  isoNaive: memo((t: LocalTime) => `${dateOf(t)}T${timeOf(t)}`),
  /** 2026-11-22T05:30:00.000 */
  isoMillis: (t: LocalTime) => `${dateOf(t)}T${timeOf(t)}.000`,
};
