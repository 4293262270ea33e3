import type { PathElement, RowElement } from "../files/xml-scan.ts";
import type { XmlNode } from "../files/xml.ts";
import type { ParsedFile } from "../records.ts";

export interface Parsed<F extends { kind: string } = ParsedFile> {
  file: F;
  warnings: string[];
}

/**
 * Turns row elements into records as the XML reader streams them, then assembles the file
 * from those records and the document header.
 */
export interface RowParser<F extends { kind: string } = ParsedFile> {
  /** One complete row element (valid during the call only); `path` = its ancestors, root first. */
  row(row: RowElement, path: readonly PathElement[]): void;
  /** The file: records seen so far plus the header read from `root` (the document without its rows). */
  finish(root: XmlNode): Parsed<F>;
}
