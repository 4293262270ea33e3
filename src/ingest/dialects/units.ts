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

const ODD_QUOTES = /[״“”׳’`]/;
const normaliseQuotes = (s: string) => (ODD_QUOTES.test(s) ? s.replace(/[״“”]/g, '"').replace(/[׳’`]/g, "'") : s);

/**
 * The unit word of `UnitQty` / `UnitOfMeasure` (`גרמים`, `100 גרם`, `ק"ג`), ignoring a leading number.
 * @example unitWord('ק"ג') // { unit: "g", factor: 1000 }
 */
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

// Unit words recognised after a number in a name. A bare `ל` is too often a preposition to
// mean litres there; of the Latin words only the usual abbreviations.
const NAME_WORDS = new Map([...WORDS].filter(([w]) => w !== "ל" && (!/^[a-z]+$/.test(w) || ["kg", "gr", "ml", "g", "l"].includes(w))));

const isDigit = (c: number) => c >= 48 && c <= 57;
/** Letters (Hebrew, Latin) and the quote marks of abbreviations (`מ"ל`, `גר'`). */
const isWordChar = (c: number) => (c >= 0x5d0 && c <= 0x5ea) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 34 || c === 39;
const isBlank = (c: number) => c === 32 || c === 9;

/** End of the number starting at `i` (digits, optionally `.`/`,` and more digits). */
function numberEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  const sep = s.charCodeAt(j);
  if ((sep === 46 || sep === 44) && isDigit(s.charCodeAt(j + 1))) {
    j++;
    while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  }
  return j;
}

const toNumber = (s: string, from: number, to: number) => Number(s.slice(from, to).replace(",", "."));

/**
 * A package size written in an item name: a number (or `count × number`) followed by a unit
 * word that is not the start of a longer word — `חלב 3% 1 ליטר` → 1000 ml, `במבה 80 גרם` →
 * 80 g, `קוטג' 250 גר` → 250 g, `80ג'` → 80 g, `מים 6*1.5 ליטר` → 9000 ml. A hand-written
 * scan (no regex): it runs for every row of chains that leave the unit fields empty.
 *
 * @example sizeFromName("במבה 80 גרם") // { sizeAmount: 80, sizeUnit: "g" }
 */
export function sizeFromName(name: string | null): Size | null {
  if (!name) return null;
  const s = normaliseQuotes(name);
  const n = s.length;
  let i = 0;
  while (i < n) {
    if (!isDigit(s.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let end = numberEnd(s, i);
    let count = 1;
    let amount = toNumber(s, start, end);
    let k = end;
    while (k < n && isBlank(s.charCodeAt(k))) k++;
    const op = s.charCodeAt(k);
    // `6*1.5`, `4 X 150`: a pack count of one or two digits.
    if ((op === 42 || op === 120 || op === 88 || op === 215) && end - start <= 2) {
      let m = k + 1;
      while (m < n && isBlank(s.charCodeAt(m))) m++;
      if (isDigit(s.charCodeAt(m))) {
        count = amount;
        end = numberEnd(s, m);
        amount = toNumber(s, m, end);
        k = end;
        while (k < n && isBlank(s.charCodeAt(k))) k++;
      }
    }
    let w = k;
    while (w < n && isWordChar(s.charCodeAt(w))) w++;
    // The longest unit word at k that is not followed by a letter: `יח'דלישס` → `יח`, `120מ"ל'` → `מ"ל`.
    for (let e = w; e > k && amount > 0 && count > 0; e--) {
      const next = s.charCodeAt(e);
      if (e !== w && next !== 34 && next !== 39) continue;
      const word = NAME_WORDS.get(s.slice(k, e).toLowerCase());
      if (word) return { sizeAmount: round(count * amount * word.factor), sizeUnit: word.unit };
    }
    i = end;
  }
  return null;
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
