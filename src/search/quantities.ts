import { foldFinals, isNumber, isTimes, normalizeKeepingPacks, piecesAt } from "./normalize.ts";

/** Normalised package-size unit, as in `products.size_unit`. */
export type SizeUnit = "g" | "ml" | "unit";

/** A package size found in a text: `amount` in grams, millilitres or units (one item of a pack). */
export interface Quantity {
  amount: number;
  unit: SizeUnit;
  /** Items in a pack (`6*1.5 ליטר` → 6), null when not stated. */
  pack: number | null;
  /** The span of the normalised text it was read from. */
  text: string;
}

/** Unit spellings (quotes removed, finals folded) → [unit, factor to the base unit]. */
const UNITS = new Map<string, [SizeUnit, number]>([
  ...(["גרמ", "גר", "ג", "גרמים", "g", "gr", "gram", "grams"].map((u) => [u, ["g", 1]]) as [string, [SizeUnit, number]][]),
  ...(["קג", "קילו", "קילוגרמ", "kg"].map((u) => [u, ["g", 1000]]) as [string, [SizeUnit, number]][]),
  ["מג", ["g", 0.001]], ["mg", ["g", 0.001]], ["מקג", ["g", 0.000001]], ["mcg", ["g", 0.000001]],
  ...(["מל", "ml", "סמק", "cc"].map((u) => [u, ["ml", 1]]) as [string, [SizeUnit, number]][]),
  ...(["ליטר", "ליט", "ל", "ליטרים", "l", "lt", "ltr", "liter", "litre"].map((u) => [u, ["ml", 1000]]) as [string, [SizeUnit, number]][]),
  ...(["יח", "יחידות", "יחידה", "יחי", "pcs", "units"].map((u) => [u, ["unit", 1]]) as [string, [SizeUnit, number]][]),
]);

/**
 * Unit words that are unambiguous on their own (no number before them) and are removed from a
 * query: `ליטר חלב`, `מ"ל`, `ק"ג`. Those meaning "one" of the unit give a quantity of 1.
 * Short bare forms (`גר`, `מל`, `ל`) are left alone: they may be a word being typed (גרנולה).
 */
const BARE_UNITS = new Map<string, number | null>([
  ["ליטר", 1], ["קילו", 1], ['ק"ג', 1], ["קג", null], ['מ"ל', null], ['מ"ג', null], ['מק"ג', null], ["גרמ", null], ["גר'", null],
  ["יח'", null], ["יחידות", null], ["גרמים", null], ["ליטרים", null], ["ml", null], ["kg", null],
]);

/**
 * The unit of a piece (`גר'`, `מ"ל`, `ליטר`, `kg`…) as [unit, factor to it], or null.
 *
 * @example unitOf('ק"ג') // → ["g", 1000];  unitOf("חלב") // → null
 */
export function unitOf(piece: string): [SizeUnit, number] | null {
  const key = foldFinals(piece.includes("'") || piece.includes('"') ? piece.replace(/["']/g, "") : piece);
  return UNITS.get(key) ?? null;
}

/** Rounds away float noise (1.5 × 1000 → 1500); an integer of up to 12 digits has none. */
const tidy = (n: number) => (Number.isInteger(n) && Math.abs(n) < 1e12 ? n : Number(n.toPrecision(12)));

/** A quantity found in a list of pieces: its value and the pieces [from, to) it spans. */
export interface QuantitySpan {
  quantity: Omit<Quantity, "text">;
  from: number;
  to: number;
}

/**
 * Finds package sizes in a list of pieces (see normalize.ts `pieces`): a number followed by a
 * unit, optionally after a pack multiplier (`6 * 1.5 ליטר`), and, with `bare`, unambiguous unit
 * words standing alone.
 *
 * @example scanQuantities(["חלב", "1", "ליטר"]) // → [{ quantity: { amount: 1000, unit: "ml", pack: null }, from: 1, to: 3 }]
 */
export function scanQuantities(list: string[], bare = false): QuantitySpan[] {
  const out: QuantitySpan[] = [];
  for (let i = 0; i < list.length; i++) {
    const piece = list[i]!;
    const next = list[i + 1];
    if (isNumber(piece) && next !== undefined && !isNumber(next)) {
      const unit = unitOf(next);
      if (unit) {
        let from = i;
        let pack: number | null = null;
        if (isTimes(list[i - 1]) && isNumber(list[i - 2])) {
          pack = Number(list[i - 2]);
          from = i - 2;
        }
        out.push({ quantity: { amount: tidy(Number(piece) * unit[1]), unit: unit[0], pack }, from, to: i + 2 });
        i++;
        continue;
      }
    }
    if (!bare || isNumber(list[i - 1])) continue;
    const one = BARE_UNITS.get(foldFinals(piece));
    if (one === undefined) continue;
    const unit = unitOf(piece)!;
    out.push({ quantity: { amount: one === null ? 0 : tidy(one * unit[1]), unit: unit[0], pack: null }, from: i, to: i + 1 });
  }
  return out;
}

/**
 * Finds package sizes in a name or query and returns them with the rest of the (normalised)
 * text. A size is a number followed by a unit, optionally after a pack multiplier; bare unit
 * words that cannot be a half-typed word are removed too (`ליטר` and `קילו` alone mean 1).
 * Units are converted: kg → g, mg → g, litre → ml.
 *
 * @example parseQuantities('שמנת מתוקה 250 מ"ל').quantities // → [{ amount: 250, unit: "ml", pack: null, text: '250 מ"ל' }]
 * @example parseQuantities("מים 6*1.5 ליטר").quantities[0] // → { amount: 1500, unit: "ml", pack: 6, text: "6*1.5 ליטר" }
 * @example parseQuantities("קוקה קולה 1.5 ל'").rest // → "קוקה קולה"
 */
export function parseQuantities(text: string): { quantities: Quantity[]; rest: string } {
  const normal = normalizeKeepingPacks(text);
  const at = piecesAt(normal);
  const spans = scanQuantities(
    at.map((p) => p.text),
    true,
  );
  const quantities: Quantity[] = [];
  let rest = normal;
  for (const span of spans.reverse()) {
    const start = at[span.from]!.start;
    const end = at[span.to - 1]!.start + at[span.to - 1]!.text.length;
    if (span.quantity.amount > 0) quantities.unshift({ ...span.quantity, text: normal.slice(start, end) });
    rest = rest.slice(0, start) + " " + rest.slice(end);
  }
  return { quantities, rest: rest.replace(/\s+/g, " ").trim() };
}
