/** Small formatting helpers for the tools' readable text. */

/** "12.90" → "₪12.90"; null → "—". */
export function ils(value: string | null | undefined): string {
  return value === null || value === undefined ? "—" : `₪${value}`;
}

/** At most `max` lines of `items`, then a line saying how many were left out. */
export function lines<T>(items: readonly T[], max: number, line: (item: T, index: number) => string): string[] {
  const out = items.slice(0, max).map(line);
  if (items.length > max) out.push(`… ${items.length - max} more (see the structured content)`);
  return out;
}

/** "1 store", "2 stores". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
