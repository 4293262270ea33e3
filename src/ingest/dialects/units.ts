import type { SizeUnit } from "../records.ts";
import { detach } from "../load/detach.ts";

export interface Size {
  sizeAmount: number | null;
  sizeUnit: SizeUnit | null;
}

interface UnitWord {
  unit: SizeUnit;
  factor: number;
}

const G: UnitWord = { unit: "g", factor: 1 };
const KG: UnitWord = { unit: "g", factor: 1000 };
const ML: UnitWord = { unit: "ml", factor: 1 };
const L: UnitWord = { unit: "ml", factor: 1000 };
const UNIT: UnitWord = { unit: "unit", factor: 1 };

// Unit words after quote normalisation (״ “ ” → ", ׳ ’ ` → ').
const WORDS = new Map<string, UnitWord>([
  ["גרם", G], ["גרמים", G], ["גר'", G], ["גר", G], ["ג'", G], ["ג", G], ["gr", G], ["g", G], ["gram", G], ["grams", G],
  ['ק"ג', KG], ["קג", KG], ["ק'ג", KG], ["קילו", KG], ["קילוגרם", KG], ["קילוגרמים", KG], ["kg", KG],
  ['מ"ל', ML], ["מל", ML], ["מ'ל", ML], ["מיליליטר", ML], ["מיליליטרים", ML], ["מ\"ל.", ML], ["ml", ML],
  ["ליטר", L], ["ליטרים", L], ["ל'", L], ["ל", L], ["l", L], ["lt", L], ["ltr", L], ["liter", L], ["litre", L],
  ["יחידה", UNIT], ["יחידות", UNIT], ["יח'", UNIT], ["יח", UNIT], ["unit", UNIT], ["units", UNIT], ["יחידת", UNIT],
]);

const normaliseQuotes = (s: string) => s.replace(/[״“”]/g, '"').replace(/[׳’`]/g, "'");

/** The unit word of `UnitQty` / `UnitOfMeasure` (`גרמים`, `100 גרם`, `ק"ג`), ignoring a leading number. */
export function unitWord(text: string | null): UnitWord | null {
  if (!text) return null;
  let found = unitCache.get(text);
  if (found === undefined) {
    const word = normaliseQuotes(text).trim().toLowerCase().replace(/^[\d.,\s]+/, "").trim();
    found = WORDS.get(word) ?? null;
    if (unitCache.size > 10_000) unitCache.clear();
    unitCache.set(detach(text), found); // a copy: the substring would pin its file's text
  }
  return found;
}
const unitCache = new Map<string, UnitWord | null>();

// "1.5 ליטר", "80ג'", "6*1.5 ליטר", "4 X 250 מ"ל": number (optionally count × number) + unit word
// not followed by another letter (so `ג` does not match the start of `גבינה`).
const UNIT_ALTERNATION = [...WORDS.keys()]
  // Latin words are added below; a bare `ל` is too often a preposition to mean litres in a name.
  .filter((w) => !/^[a-z]+$/.test(w) && w !== "ל")
  .sort((a, b) => b.length - a.length)
  .map((w) => w.replace(/[.*+?^${}()|[\]\\"']/g, "\\$&"))
  .join("|");
const IN_NAME = new RegExp(
  `(?:^|[^\\d.,])(?:(\\d{1,2})\\s*[*xX×]\\s*)?(\\d+(?:[.,]\\d+)?)\\s*(${UNIT_ALTERNATION}|kg|gr|ml|g|l)(?![\\u05d0-\\u05eaA-Za-z])`,
  "i",
);

/**
 * A package size written in an item name: `חלב 3% 1 ליטר` → 1000 ml, `במבה 80 גרם` → 80 g,
 * `קוטג' 250 גר` → 250 g, `מים 6*1.5 ליטר` → 9000 ml.
 *
 * @example sizeFromName("במבה 80 גרם") // { sizeAmount: 80, sizeUnit: "g" }
 */
export function sizeFromName(name: string | null): Size | null {
  if (!name || !/\d/.test(name)) return null;
  const m = IN_NAME.exec(normaliseQuotes(name));
  if (!m) return null;
  const word = WORDS.get(m[3]!.toLowerCase());
  if (!word) return null;
  const count = m[1] ? Number(m[1]) : 1;
  const amount = Number(m[2]!.replace(",", "."));
  if (!(amount > 0) || !(count > 0)) return null;
  return { sizeAmount: round(count * amount * word.factor), sizeUnit: word.unit };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export interface SizeInput {
  unitQty: string | null;
  quantity: number | null;
  unitOfMeasure: string | null;
  isWeighted: boolean;
  name: string | null;
}

/**
 * Package size in g / ml / units from `UnitQty` + `Quantity` (`גרמים` 200 → 200 g, `ליטר` 1.5
 * → 1500 ml, `ק"ג` 1 → 1000 g), else from `UnitOfMeasure`'s unit word, else from the name.
 * Weighed items are priced per kilogram: 1000 g (1000 ml if their unit is a volume).
 *
 * @example normaliseSize({ unitQty: "גרמים", quantity: 200, unitOfMeasure: "100 גרם", isWeighted: false, name: null })
 * // { sizeAmount: 200, sizeUnit: "g" }
 */
export function normaliseSize(input: SizeInput): Size {
  const word = unitWord(input.unitQty) ?? unitWord(input.unitOfMeasure);
  if (input.isWeighted) return { sizeAmount: 1000, sizeUnit: word?.unit === "ml" ? "ml" : "g" };
  if (word && input.quantity !== null && input.quantity > 0) {
    return { sizeAmount: round(input.quantity * word.factor), sizeUnit: word.unit };
  }
  return sizeFromName(input.name) ?? { sizeAmount: null, sizeUnit: null };
}
