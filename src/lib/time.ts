/** Israel-local time helpers: the files' naive timestamps and the API's dates are Asia/Jerusalem. */

export const ISRAEL_TZ = "Asia/Jerusalem";

const offsetFormat = new Intl.DateTimeFormat("en-US", {
  timeZone: ISRAEL_TZ,
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

function parts(date: Date): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of offsetFormat.formatToParts(date)) out[p.type] = p.value;
  return out;
}

/** Minutes east of UTC in Israel at that instant (120 or 180). */
export function israelOffsetMinutes(date: Date): number {
  const p = parts(date);
  const asUtc = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
  return Math.round((asUtc - Math.floor(date.getTime() / 1000) * 1000) / 60000);
}

/**
 * An instant as ISO 8601 in Israel local time with its offset.
 * @example toIsraelIso(new Date("2026-11-22T03:30:00Z")) // "2026-11-22T05:30:00+02:00"
 */
export function toIsraelIso(date: Date): string {
  const p = parts(date);
  const off = israelOffsetMinutes(date);
  const sign = off >= 0 ? "+" : "-";
  const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, "0");
  const mm = String(Math.abs(off) % 60).padStart(2, "0");
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${sign}${hh}:${mm}`;
}

/** The Israel-local calendar date `YYYY-MM-DD` of an instant. */
export function israelDate(date: Date): string {
  return toIsraelIso(date).slice(0, 10);
}

/**
 * Interprets a naive Israel-local wall time (as the files write it) as an instant.
 * @example israelLocalToDate(2026, 7, 1, 12, 0, 0).toISOString() // "2026-07-01T09:00:00.000Z"
 */
export function israelLocalToDate(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Date {
  const guess = Date.UTC(year, month - 1, day, hour, minute, second);
  // Two passes settle the offset also next to a DST switch.
  let instant = guess - israelOffsetMinutes(new Date(guess)) * 60000;
  instant = guess - israelOffsetMinutes(new Date(instant)) * 60000;
  return new Date(instant);
}

/** Agorot → "12.90". */
export function formatIls(agorot: number): string {
  const sign = agorot < 0 ? "-" : "";
  const abs = Math.abs(Math.round(agorot));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/**
 * `YYYY-MM-DD` minus whole months, the day clamped to the target month's length.
 * @example monthsBefore("2026-03-31", 1) // "2026-02-28"
 */
export function monthsBefore(date: string, months: number): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const index = y * 12 + (m - 1) - months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, "0")}-${String(Math.min(d, last)).padStart(2, "0")}`;
}
