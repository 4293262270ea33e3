import type { XmlNode, XmlValue } from "../files/xml.ts";
import type { PriceRecord, PricesFile } from "../records.ts";
import { parseIsraelDateTime } from "./dates.ts";

import { fromContext, HEADER_FIELDS } from "./header-fields.ts";
import { toAgorot } from "./money.ts";
import { PRICE_FIELDS } from "./price-fields.ts";
import { collectRows, headerOf } from "./tree.ts";
import { normaliseSize } from "./units.ts";
import type { Parsed, RowParser } from "./row-parser.ts";
import { cleanCode, cleanText, isPlaceholder, rawCode, stripCode, textOf, toFlag, toInt, toPositive } from "./values.ts";

/** Row elements of price files: Cerberus/Bina/new `Item`, Matrix `Product`, Super-Pharm `Line`, Tiv Taam `item`. */
export const PRICE_ROWS: ReadonlySet<string> = new Set(["item", "product", "line"]);



// Slot numbers of the fields read per row.
const S = Object.fromEntries(PRICE_FIELDS.fields.map((f, i) => [f, i])) as Record<(typeof PRICE_FIELDS.fields)[number], number>;

/**
 * Streams price rows of any dialect (`Root/Items/Item`, `Prices/Products/Product`,
 * `OrderXml/…/Details/Line`, `NewDataSet/item`) into {@link PriceRecord}s. Rows without an
 * item code or a readable price are skipped and counted in the warnings.
 *
 * @example const p = priceRowParser(); p.row(itemNode, []); p.finish(root).file.items[0].price // 590
 */
export function priceRowParser(): RowParser<PricesFile> {
  const items: PriceRecord[] = [];
  const v: (XmlValue | undefined)[] = new Array(PRICE_FIELDS.fields.length);
  let noCode = 0;
  let noPrice = 0;
  // Rows of a file mostly repeat the previous row's PriceUpdateDate: read it once per run of equal values.
  let lastUpdated: string | undefined;
  let lastIso: string | null = null;
  let first: { chainCode?: XmlValue; subChainCode?: XmlValue; storeCode?: XmlValue } | null = null;
  const updatedAtOf = (raw: string | undefined): string | null => {
    if (raw !== lastUpdated) {
      lastUpdated = raw;
      lastIso = parseIsraelDateTime(raw);
    }
    return lastIso;
  };
  return {
    row(row) {
      PRICE_FIELDS.readSlots(row, v);
      first ??= { chainCode: v[S.chainCode], subChainCode: v[S.subChainCode], storeCode: v[S.storeCode] };
      const itemCode = rawCode(v[S.itemCode]);
      if (!itemCode || isPlaceholder(itemCode)) {
        noCode++;
        return;
      }
      const price = toAgorot(textOf(v[S.price]));
      if (price === null || price < 0) {
        noPrice++;
        return;
      }
      const name = cleanText(v[S.name]);
      // The description often repeats the name verbatim: clean it once.
      const description = v[S.description] === v[S.name] ? name : cleanText(v[S.description]);
      const unitQty = cleanCode(v[S.unitQty]);
      const unitOfMeasure = cleanCode(v[S.unitOfMeasure]);
      const quantity = toPositive(v[S.quantity]);
      const isWeighted = toFlag(v[S.isWeighted]);
      const size = normaliseSize({ unitQty, quantity, unitOfMeasure, isWeighted, name: name ?? description });
      items.push({
        itemCode,
        itemType: toInt(v[S.itemType]),
        name: name ?? description ?? "",
        manufacturer: cleanText(v[S.manufacturer]),
        manufactureCountry: cleanCode(v[S.manufactureCountry]),
        description,
        unitQty,
        quantity,
        unitOfMeasure,
        sizeAmount: size.sizeAmount,
        sizeUnit: size.sizeUnit,
        isWeighted,
        qtyInPackage: toPositive(v[S.qtyInPackage]),
        price,
        allowDiscount: toFlag(v[S.allowDiscount], true),
        itemStatus: toInt(v[S.itemStatus]),
        updatedAt: updatedAtOf(textOf(v[S.updatedAt])),
      });
    },
    finish(root) {
      const header = headerOf(root, PRICE_ROWS);
      const warnings: string[] = [];
      if (noCode) warnings.push(`${noCode} price rows without ItemCode skipped`);
      if (noPrice) warnings.push(`${noPrice} price rows without a readable ItemPrice skipped`);
      return {
        file: {
          kind: "prices",
          chainCode: stripCode(fromContext(header, HEADER_FIELDS.chainCode) ?? first?.chainCode),
          subChainCode: stripCode(fromContext(header, HEADER_FIELDS.subChainCode) ?? first?.subChainCode),
          storeCode: stripCode(fromContext(header, HEADER_FIELDS.storeCode) ?? first?.storeCode),
          items,
        },
        warnings,
      };
    },
  };
}

/**
 * {@link priceRowParser} over a whole in-memory document.
 * @example parsePrices(scanXml(text).root).file.items.length // 2243
 */
export function parsePrices(root: XmlNode): Parsed<PricesFile> {
  const parser = priceRowParser();
  for (const { node, path } of collectRows(root, PRICE_ROWS)) parser.row(node, path);
  return parser.finish(root);
}
