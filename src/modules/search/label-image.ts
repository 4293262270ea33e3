import { categoryBySlug, OTHER } from "../../search/categories.ts";

/** What a generated product label shows. */
export interface LabelProduct {
  barcode: string;
  name: string;
  sizeAmount: number | null;
  sizeUnit: string | null;
  category: string;
}

// Characters XML 1.0 does not allow, and lone surrogates.
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/**
 * Text safe inside an SVG element or attribute: invalid characters dropped, markup characters
 * escaped.
 *
 * @example escapeXml('<a href="x">') // → "&lt;a href=&quot;x&quot;&gt;"
 */
export function escapeXml(text: string): string {
  return text.replace(XML_INVALID, "").replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * The package size as a Hebrew label: `1.5 ליטר`, `250 מ"ל`, `1 ק"ג`, `80 גרם`, `6 יח'`.
 *
 * @example sizeLabel(1500, "ml") // → "1.5 ליטר"
 */
export function sizeLabel(amount: number | null, unit: string | null): string | null {
  if (!amount || amount <= 0 || !unit) return null;
  const n = (x: number) => String(Number(x.toFixed(3)));
  if (unit === "g") return amount >= 1000 ? `${n(amount / 1000)} ק"ג` : `${n(amount)} גרם`;
  if (unit === "ml") return amount >= 1000 ? `${n(amount / 1000)} ליטר` : `${n(amount)} מ"ל`;
  if (unit === "unit") return `${n(amount)} יח'`;
  return null;
}

/** Splits a name into at most `maxLines` lines of about `width` characters (an ellipsis when cut). */
export function wrapName(name: string, width = 16, maxLines = 4): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of name.trim().split(/\s+/)) {
    const candidate = line ? `${line} ${word}` : word;
    if (candidate.length <= width || !line) line = candidate;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines.map((l) => (l.length > width * 1.5 ? l.slice(0, width * 1.5 - 1) + "…" : l));
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = kept[maxLines - 1]!.slice(0, width - 1) + "…";
  return kept;
}

/**
 * A 400×400 SVG label for a product without a photo: category band in the category's colour,
 * the name (right to left, wrapped), the package size and the barcode. All text is escaped.
 *
 * @example labelSvg({ barcode: "7290000066318", name: "חלב 3% 1 ליטר", sizeAmount: 1000, sizeUnit: "ml", category: "dairy" })
 */
export function labelSvg(product: LabelProduct): string {
  const category = categoryBySlug(product.category) ?? categoryBySlug(OTHER)!;
  const lines = wrapName(product.name);
  const size = sizeLabel(product.sizeAmount, product.sizeUnit);
  const lineHeight = 40;
  const top = 200 - ((lines.length - 1) * lineHeight) / 2 - (size ? 18 : 0);
  const font = "Arial, Helvetica, sans-serif";
  const nameLines = lines
    .map((l, i) => `<text x="200" y="${Math.round(top + i * lineHeight)}">${escapeXml(l)}</text>`)
    .join("");
  const sizeLine = size
    ? `<text x="200" y="${Math.round(top + lines.length * lineHeight + 14)}" font-family="${font}" font-size="24" fill="#555555" text-anchor="middle" direction="rtl">${escapeXml(size)}</text>`
    : "";
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400" role="img" aria-label="${escapeXml(product.name)}">` +
    `<title>${escapeXml(product.name)}</title>` +
    `<rect width="400" height="400" fill="${category.color}"/>` +
    `<rect x="16" y="16" width="368" height="368" rx="20" fill="#ffffff"/>` +
    `<rect x="16" y="16" width="368" height="60" rx="20" fill="${category.color}" fill-opacity="0.25"/>` +
    `<text x="200" y="55" font-family="${font}" font-size="22" font-weight="700" fill="#333333" text-anchor="middle" direction="rtl">${escapeXml(category.name)}</text>` +
    `<g font-family="${font}" font-size="30" font-weight="700" fill="#212121" text-anchor="middle" direction="rtl">${nameLines}</g>` +
    sizeLine +
    `<text x="200" y="360" font-family="monospace" font-size="18" fill="#757575" text-anchor="middle">${escapeXml(product.barcode)}</text>` +
    `</svg>`
  );
}
