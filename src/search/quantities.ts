import { foldFinals, normalizeKeepingPacks } from "./hebrew.ts";

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
const UNITS: Record<string, [SizeUnit, number]> = {
  "גרמ": ["g", 1], "גר": ["g", 1], "ג": ["g", 1], "גרמים": ["g", 1], g: ["g", 1], gr: ["g", 1], gram: ["g", 1], grams: ["g", 1],
  "קג": ["g", 1000], "קילו": ["g", 1000], "קילוגרמ": ["g", 1000], kg: ["g", 1000],
  "מג": ["g", 0.001], mg: ["g", 0.001], "מקג": ["g", 0.000001], mcg: ["g", 0.000001],
  "מל": ["ml", 1], ml: ["ml", 1], "סמק": ["ml", 1], cc: ["ml", 1],
  "ליטר": ["ml", 1000], "ליט": ["ml", 1000], "ל": ["ml", 1000], "ליטרים": ["ml", 1000], l: ["ml", 1000], lt: ["ml", 1000], ltr: ["ml", 1000],
  liter: ["ml", 1000], litre: ["ml", 1000],
  "יח": ["unit", 1], "יחידות": ["unit", 1], "יחידה": ["unit", 1], "יחי": ["unit", 1], pcs: ["unit", 1], units: ["unit", 1],
};

/**
 * Unit words that are unambiguous on their own (no number before them) and are removed from a
 * query: `ליטר חלב`, `מ"ל`, `ק"ג`. Those meaning "one" of the unit give a quantity of 1.
 * Short bare forms (`גר`, `מל`, `ל`) are left alone: they may be a word being typed (גרנולה).
 */
const BARE_UNITS: Record<string, number | null> = {
  "ליטר": 1, "קילו": 1, 'ק"ג': 1, "קג": null, 'מ"ל': null, 'מ"ג': null, 'מק"ג': null, "גרמ": null, "גר'": null,
  "יח'": null, "יחידות": null, "גרמים": null, "ליטרים": null, "ml": null, "kg": null,
};

const PIECE = /\d+(?:\.\d+)?%?|[\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?|\p{L}+|[×*]/gu;

interface Piece {
  text: string;
  start: number;
  end: number;
}

function unitOf(raw: string): [SizeUnit, number] | null {
  const key = foldFinals(raw.replace(/["']/g, ""));
  return Object.hasOwn(UNITS, key) ? UNITS[key]! : null;
}

const isNumber = (p: Piece | undefined) => p !== undefined && /^\d+(?:\.\d+)?$/.test(p.text);
const isTimes = (p: Piece | undefined) => p !== undefined && (p.text === "x" || p.text === "×" || p.text === "*");

/** Rounds away float noise (1.5 × 1000 → 1500, 0.1 × 1000 → 100). */
const tidy = (n: number) => Number(n.toPrecision(12));

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
  const pieces: Piece[] = [];
  for (const m of normal.matchAll(PIECE)) pieces.push({ text: m[0], start: m.index!, end: m.index! + m[0].length });
  const quantities: Quantity[] = [];
  const cut: [number, number][] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const next = pieces[i + 1];
    if (isNumber(piece) && next && !isNumber(next)) {
      const unit = unitOf(next.text);
      if (unit) {
        let start = piece.start;
        let pack: number | null = null;
        if (isTimes(pieces[i - 1]) && isNumber(pieces[i - 2])) {
          pack = Number(pieces[i - 2]!.text);
          start = pieces[i - 2]!.start;
        }
        quantities.push({ amount: tidy(Number(piece.text) * unit[1]), unit: unit[0], pack, text: normal.slice(start, next.end) });
        cut.push([start, next.end]);
        i++;
        continue;
      }
    }
    const bare = BARE_UNITS[foldFinals(piece.text)];
    if (bare !== undefined && !isNumber(pieces[i - 1])) {
      const unit = unitOf(piece.text)!;
      if (bare !== null) quantities.push({ amount: tidy(bare * unit[1]), unit: unit[0], pack: null, text: piece.text });
      cut.push([piece.start, piece.end]);
    }
  }
  let rest = normal;
  for (const [start, end] of cut.reverse()) rest = rest.slice(0, start) + " ".repeat(end - start) + rest.slice(end);
  return { quantities, rest: rest.replace(/\s+/g, " ").trim() };
}
