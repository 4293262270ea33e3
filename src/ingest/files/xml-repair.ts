// Repairs applied only after a strict parse failed (the common, well-formed file pays nothing).

const BARE_AMPERSAND = /&(?!(?:[A-Za-z_][\w.-]*|#\d+|#x[0-9A-Fa-f]+);)/g;

/**
 * Escapes `&` that does not start an entity or character reference.
 * @example repairAmpersands("<A>M&M &amp; co</A>") // "<A>M&amp;M &amp; co</A>"
 */
export function repairAmpersands(xml: string): string {
  return xml.replace(BARE_AMPERSAND, "&amp;");
}

const UNQUOTED_ATTRIBUTE = /(<[A-Za-z_][^<>]*?\s[A-Za-z_][\w.:-]*\s*=\s*)([^\s"'<>/=][^\s<>]*?)(?=[\s/>])/g;

/**
 * Quotes attribute values written without quotes (`Count=5`).
 * @example quoteAttributes('<Items Count=5>') // '<Items Count="5">'
 */
export function quoteAttributes(xml: string): string {
  let previous: string;
  let out = xml;
  // A tag with several unquoted attributes needs one pass per attribute.
  do {
    previous = out;
    out = out.replace(UNQUOTED_ATTRIBUTE, '$1"$2"');
  } while (out !== previous);
  return out;
}

const CLOSING_TAG = /<\/([A-Za-z_][\w.:-]*)\s*>/g;
const ANY_TAG = /<(\/?)([A-Za-z_][\w.:-]*)(?:\s[^<>]*?)?(\/?)>|<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->/g;

const localName = (tag: string) => tag.slice(tag.indexOf(":") + 1).toLowerCase();

/**
 * Cuts a truncated document after its last complete row (an element named in `rowNames`,
 * lower case) and closes the elements still open there. Null when no row is complete.
 *
 * @example closeTruncated("<Root><Items><Item>1</Item><Item>2", new Set(["item"])) // "<Root><Items><Item>1</Item></Items></Root>"
 */
export function closeTruncated(xml: string, rowNames: Set<string>): { xml: string; cutAt: number } | null {
  let cut = -1;
  for (const match of xml.matchAll(CLOSING_TAG)) {
    if (rowNames.has(localName(match[1]!))) cut = match.index! + match[0].length;
  }
  if (cut < 0) return null;
  const prefix = xml.slice(0, cut);
  const open: string[] = [];
  for (const match of prefix.matchAll(ANY_TAG)) {
    const name = match[2];
    if (!name || match[3]) continue;
    if (match[1]) {
      const at = open.lastIndexOf(name);
      if (at >= 0) open.length = at;
    } else {
      open.push(name);
    }
  }
  return { xml: prefix + open.reverse().map((n) => `</${n}>`).join(""), cutAt: cut };
}
