/** A CSV field value: text, number, boolean, or null (an empty field). */
export type CsvValue = string | number | boolean | null;

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled;
 * null is the empty field, booleans `true`/`false`.
 * @example csvField('חלב "תנובה", 3%') // '"חלב ""תנובה"", 3%"'
 */
export function csvField(value: CsvValue): string {
  if (value === null) return "";
  const text = typeof value === "string" ? value : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record with its CRLF line end (RFC 4180). */
export function csvRow(values: readonly CsvValue[]): string {
  let line = "";
  for (let i = 0; i < values.length; i++) line += (i ? "," : "") + csvField(values[i]!);
  return line + "\r\n";
}

/**
 * Splits CSV text back into records (for tests and for reading an export back): quoted fields
 * may hold commas, doubled quotes and line breaks.
 * @example parseCsv('a,"b,c"\r\n1,2\r\n') // [["a", "b,c"], ["1", "2"]]
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      // the record ends at the \n
    } else if (ch === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
