import { FileRejectedError } from "./rejected.ts";
import { closeTruncated, quoteAttributes, repairAmpersands } from "./xml-repair.ts";

/** What `Bun.XML.parse` returns: `@attr`, `#text`, repeated children as arrays, all values strings. */
export type XmlValue = string | XmlNode | XmlValue[];
export interface XmlNode {
  [key: string]: XmlValue;
}

export interface ParsedXml {
  /** Root element name as written (e.g. `Root`, `asx:abap`). */
  rootName: string;
  root: XmlNode;
  /** True when the document was cut short and closed after its last complete row. */
  partial: boolean;
  warnings: string[];
}

/** Row element names of every dialect (lower case, no namespace), used to cut truncated files. */
export const ROW_ELEMENTS = new Set(["item", "product", "line", "promotion", "sale", "store", "branch"]);

const DECLARATION = /<!(DOCTYPE|ENTITY)\b/i;

function parseOnce(xml: string): { rootName: string; root: XmlNode } {
  const doc = Bun.XML.parse(xml) as unknown;
  if (!doc || typeof doc !== "object") throw new SyntaxError("document has no root element");
  const rootName = Object.keys(doc)[0];
  if (!rootName) throw new SyntaxError("document has no root element");
  const value = (doc as XmlNode)[rootName];
  const root: XmlNode = typeof value === "object" && !Array.isArray(value) ? value : { "#text": (value as string) ?? "" };
  return { rootName, root };
}

/**
 * Parses a decoded price file with `Bun.XML.parse` (native, SIMD). Refuses DOCTYPE/ENTITY
 * declarations (Bun would expand internal entities). When the strict parse fails, repairs bare
 * `&` and unquoted attribute values; then, for a truncated document, keeps the complete rows
 * (`partial: true`). Anything else is rejected.
 *
 * @example parseXml("<Root><Items Count=1><Item>1</Item></Items></Root>").root.Items // { "@Count": "1", Item: "1" }
 */
export function parseXml(text: string): ParsedXml {
  if (DECLARATION.test(text)) throw new FileRejectedError("entity-declaration", "XML with DOCTYPE/ENTITY declarations is refused");
  if (!text.trim()) throw new FileRejectedError("empty", "file is empty");
  try {
    return { ...parseOnce(text), partial: false, warnings: [] };
  } catch (first) {
    const warnings: string[] = [];
    let repaired = repairAmpersands(text);
    if (repaired !== text) warnings.push("escaped bare '&' characters");
    const quoted = quoteAttributes(repaired);
    if (quoted !== repaired) warnings.push("quoted unquoted attribute values");
    repaired = quoted;
    if (repaired !== text) {
      try {
        return { ...parseOnce(repaired), partial: false, warnings };
      } catch {
        // fall through to truncation recovery
      }
    }
    const closed = closeTruncated(repaired, ROW_ELEMENTS);
    if (closed) {
      try {
        const parsed = parseOnce(closed.xml);
        warnings.push(`XML is truncated or damaged after character ${closed.cutAt} of ${repaired.length}; kept the complete rows before it`);
        return { ...parsed, partial: true, warnings };
      } catch {
        // not a clean cut: malformed inside
      }
    }
    throw new FileRejectedError("malformed-xml", `malformed XML: ${(first as Error).message}`);
  }
}
