const HEBREW = /[\u05d0-\u05ea]/;
// windows-1255 letters read as Latin-1: א..ת = E0..FA → à..ú.
const LATIN1_RUN = /[\u00e0-\u00fa]{3,}/;
const LATIN1_LETTER = /[\u00e0-\u00fa]/g;
// UTF-8 letters (D7 90..D7 AA) read as Latin-1: "×" + U+0090..U+00AA.
const DOUBLE_UTF8 = /\u00d7([\u0090-\u00aa])/g;

/**
 * Repairs Hebrew that was mis-decoded before it was written out ("gibberish"): either
 * windows-1255 bytes read as Latin-1 (`àáâ`), or UTF-8 bytes read as Latin-1 (`×\u0090`).
 * Text that already holds Hebrew letters is returned unchanged.
 *
 * @example repairGibberish("çìá 3%") // "חלב 3%"
 */
export function repairGibberish(text: string): { text: string; repaired: boolean } {
  if (HEBREW.test(text)) return { text, repaired: false };
  if (text.includes("\u00d7")) {
    const fixed = text.replace(DOUBLE_UTF8, (_, c: string) => String.fromCharCode(0x5d0 + c.charCodeAt(0) - 0x90));
    if (fixed !== text) return { text: fixed, repaired: true };
  }
  if (LATIN1_RUN.test(text)) {
    return { text: text.replace(LATIN1_LETTER, (c) => String.fromCharCode(0x5d0 + c.charCodeAt(0) - 0xe0)), repaired: true };
  }
  return { text, repaired: false };
}
