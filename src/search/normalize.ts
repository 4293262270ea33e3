/**
 * The character-level half of Hebrew search analysis: normalisation and splitting into pieces.
 * Written for speed (the index analyses every product name on each rebuild): text made only of
 * ASCII and plain Hebrew letters skips Unicode decomposition, and each rewrite runs only when
 * its trigger character is present.
 */

const GERESH_LIKE = /['\u05F3\u2018\u2019\u201B\u0060\u00B4\u02BC\u02B9]/g;
const GERSHAYIM_LIKE = /["\u05F4\u201C\u201D\u201E\u201F\u02BA]|''/g;
/**
 * A percent sign written before its number (`% 5`, `%3`: right-to-left text typed or stored in
 * visual order), not after another number: the sign goes after the number.
 */
const PERCENT_BEFORE = /(^|[^\d\s%]\s*)%\s?(\d+(?:\.\d+)?)(?![\d.%])/g;
/** Anything beyond printable ASCII (but the backquote) and the 27 Hebrew letters. */
const NEEDS_UNICODE = /[^\u0020-\u005F\u0061-\u007E\u05D0-\u05EA]/;

/**
 * Normalises text for search, keeping pack multipliers (`6x1.5`): NFKD without combining marks
 * (niqqud, cantillation, presentation forms, Latin accents), maqaf → `-`, geresh/gershayim
 * look-alikes unified to `'`/`"` (a doubled geresh is a gershayim), decimal comma → point,
 * `3 אחוז`, `3 %` and `% 3` → `3%`, a hyphenated one-letter prefix (`ל-ליזין`, `ב-100`) dropped, lowercase.
 *
 * @example normalizeKeepingPacks("שׁוֹקוֹלָד מְרִיר 1,5 ק״ג") // → 'שוקולד מריר 1.5 ק"ג'
 */
export function normalizeKeepingPacks(text: string): string {
  let s = text;
  if (NEEDS_UNICODE.test(s)) {
    // Quote look-alikes first: NFKD would turn ´ into a space and a combining accent.
    s = s.replace(GERESH_LIKE, "'").replace(GERSHAYIM_LIKE, '"').normalize("NFKD").replace(/\p{M}/gu, "").replace(/\u05BE/g, "-");
  } else if (s.includes("''")) {
    s = s.replace(/''/g, '"');
  }
  if (s.includes(",")) s = s.replace(/(\d),(\d)/g, "$1.$2");
  if (s.includes("אחוז")) s = s.replace(/(\d)\s*(?:אחוזים|אחוז)(?![\u05D0-\u05EA])/g, "$1%");
  if (s.includes("%")) s = s.replace(/(\d)\s+%/g, "$1%").replace(PERCENT_BEFORE, "$1$2%");
  if (s.includes("-")) s = s.replace(/(^|[^\p{L}\p{N}])[ובכלמהש]-(?=[\p{L}\p{N}])/gu, "$1");
  return s.toLowerCase();
}

/**
 * Normalises text for search: `normalizeKeepingPacks`, then pack multipliers split (`6*1.5` → `6 1.5`).
 *
 * @example normalize("מים 6*1.5 ליטר") // → "מים 6 1.5 ליטר"
 */
export function normalize(text: string): string {
  const s = normalizeKeepingPacks(text);
  return /[x×*]/.test(s) ? s.replace(/(\d)\s*[x×*]\s*(?=\d)/g, "$1 ") : s;
}

// A number (decimal point, %), a Hebrew word that may hold geresh/gershayim between letters or
// a geresh at its end (קוטג', מ"ל), a run of other letters, or a pack multiplier sign.
// Letters and digits never share a piece. The ASCII variant serves text without other scripts.
const PIECE_UNICODE = /\d+(?:\.\d+)?%?|[\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?|\p{L}+|[×*]/gu;
const PIECE_ASCII = /\d+(?:\.\d+)?%?|[\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?|[a-z]+|\*/g;
const OTHER_SCRIPT = /[^\u0000-\u007F\u05D0-\u05EA]/;

/**
 * Splits normalised text (see `normalizeKeepingPacks`) into pieces: numbers, words and the
 * multiplier signs `*`/`×` (a Latin `x` comes out as the word "x").
 *
 * @example pieces('קוטג\' 5% 6*250גר\'') // → ["קוטג'", "5%", "6", "*", "250", "גר'"]
 */
export function pieces(normalised: string): string[] {
  return normalised.match(OTHER_SCRIPT.test(normalised) ? PIECE_UNICODE : PIECE_ASCII) ?? [];
}

/**
 * Like `pieces`, with each piece's start offset in the text.
 *
 * @example piecesAt("מים 1.5 ליטר") // → [{ text: "מים", start: 0 }, { text: "1.5", start: 4 }, { text: "ליטר", start: 8 }]
 */
export function piecesAt(normalised: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  for (const m of normalised.matchAll(OTHER_SCRIPT.test(normalised) ? PIECE_UNICODE : PIECE_ASCII)) out.push({ text: m[0], start: m.index! });
  return out;
}

/**
 * True for a piece that is a pack multiplier sign (`*`, `×`, or a Latin `x`).
 *
 * @example isTimes("x") // → true;  isTimes("6") // → false
 */
export function isTimes(piece: string | undefined): boolean {
  return piece === "*" || piece === "×" || piece === "x";
}

/**
 * True for a piece that is a plain number (no %).
 *
 * @example isNumber("1.5") // → true;  isNumber("3%") // → false
 */
export function isNumber(piece: string | undefined): boolean {
  if (piece === undefined) return false;
  const c = piece.charCodeAt(0);
  return c >= 48 && c <= 57 && piece.charCodeAt(piece.length - 1) !== 37;
}

/**
 * Folds the five final letters to their regular forms.
 *
 * @example foldFinals("שלום") // → "שלומ"
 */
export function foldFinals(text: string): string {
  // A scan of character codes (ך 05DA, ם 05DD, ן 05DF, ף 05E3, ץ 05E5; each regular form is the
  // next code) is cheaper than a regex on a word; most words have none, or one at their end.
  let out: string | null = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5da || c === 0x5dd || c === 0x5df || c === 0x5e3 || c === 0x5e5) {
      out = (out ?? "") + text.slice(from, i) + String.fromCharCode(c + 1);
      from = i + 1;
    }
  }
  return out === null ? text : out + text.slice(from);
}
