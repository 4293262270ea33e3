import { FileRejectedError } from "./rejected.ts";
import { scanXml, type ScanOptions } from "./xml-scan.ts";

import type { XmlNode } from "./xml-value.ts";

export type { XmlNode, XmlValue } from "./xml-value.ts";

export interface ParsedXml {
  /** Root element name as written (e.g. `Root`, `asx:abap`). */
  rootName: string;
  /** The document (without the rows streamed to `onRow`). */
  root: XmlNode;
  /** The input ended before the document did: only the complete rows were read. */
  partial: boolean;
  warnings: string[];
}


const DECLARATION = /<!(DOCTYPE|ENTITY)\b/i;

/**
 * Parses a decoded price file with {@link scanXml}. Refuses DOCTYPE/ENTITY declarations up
 * front (entities are never expanded) and text that does not start with a tag. A document that ends early (a cut download) keeps its
 * complete rows (`partial: true`); a structural error (mismatched tags) rejects the file.
 *
 * @example parseXml("<Root><Items Count=1><Item><A>1</A></Item></Items></Root>").root.Items // { "@Count": "1", Item: { A: "1" } }
 */
export function parseXml(text: string, options: ScanOptions = {}): ParsedXml {
  if (text.indexOf("<!") >= 0 && DECLARATION.test(text)) {
    throw new FileRejectedError("entity-declaration", "XML with DOCTYPE/ENTITY declarations is refused");
  }
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 32) start++;
  if (start === text.length) throw new FileRejectedError("empty", "file is empty");
  // The scanner skips text outside the root; a file that starts with text (a README, an HTML
  // error page's plain text) is not a price file, whatever tags it mentions later.
  if (text.charCodeAt(start) !== 60 /* < */) throw new FileRejectedError("malformed-xml", "not an XML document: it starts with text");
  try {
    const scanned = scanXml(text, options);
    return {
      rootName: scanned.rootName,
      root: scanned.root,
      partial: scanned.truncated !== null,
      warnings: scanned.truncated ? [`XML is truncated (${scanned.truncated}); kept the complete rows before the cut`] : [],
    };
  } catch (error) {
    if (error instanceof SyntaxError) throw new FileRejectedError("malformed-xml", `malformed XML: ${error.message}`);
    throw error;
  }
}
