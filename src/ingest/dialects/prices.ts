import type { XmlNode } from "../files/xml.ts";
import type { PriceRecord, PricesFile } from "../records.ts";
import { parseIsraelDateTime } from "./dates.ts";

import { fromContext, HEADER_FIELDS } from "./header-fields.ts";
import { toAgorot } from "./money.ts";
import { PRICE_FIELDS } from "./price-fields.ts";
import { collectRows, headerOf } from "./tree.ts";
import { normaliseSize } from "./units.ts";
import { cleanText, rawCode, stripCode, textOf, toFlag, toInt, toPositive } from "./values.ts";

/** Row elements of price files: Cerberus/Bina/new `Item`, Matrix `Product`, Super-Pharm `Line`, Tiv Taam `item`. */
export const PRICE_ROWS: ReadonlySet<string> = new Set(["item", "product", "line"]);



export interface ParsedPrices {
  file: PricesFile;
  warnings: string[];
}

/**
 * Price rows of any dialect (`Root/Items/Item`, `Prices/Products/Product`,
 * `OrderXml/…/Details/Line`, `NewDataSet/item`) as {@link PriceRecord}s. Rows without an item
 * code or a readable price are skipped and counted in the warnings.
 *
 * @example parsePrices(parseXml(text).root).file.items[0].price // 590
 */
export function parsePrices(root: XmlNode): ParsedPrices {
  const header = headerOf(root, PRICE_ROWS);
  const rows = collectRows(root, PRICE_ROWS);
  const items: PriceRecord[] = new Array(rows.length);
  let count = 0;
  let noCode = 0;
  let noPrice = 0;
  for (let i = 0; i < rows.length; i++) {
    const f = PRICE_FIELDS.read(rows[i]!.node);
    const itemCode = rawCode(f.itemCode);
    if (!itemCode || /^0+$/.test(itemCode)) {
      noCode++;
      continue;
    }
    const price = toAgorot(textOf(f.price));
    if (price === null || price < 0) {
      noPrice++;
      continue;
    }
    const name = cleanText(f.name);
    const description = cleanText(f.description);
    const unitQty = cleanText(f.unitQty);
    const unitOfMeasure = cleanText(f.unitOfMeasure);
    const quantity = toPositive(f.quantity);
    const isWeighted = toFlag(f.isWeighted);
    const size = normaliseSize({ unitQty, quantity, unitOfMeasure, isWeighted, name: name ?? description });
    items[count++] = {
      itemCode,
      itemType: toInt(f.itemType),
      name: name ?? description ?? "",
      manufacturer: cleanText(f.manufacturer),
      manufactureCountry: cleanText(f.manufactureCountry),
      description,
      unitQty,
      quantity,
      unitOfMeasure,
      sizeAmount: size.sizeAmount,
      sizeUnit: size.sizeUnit,
      isWeighted,
      qtyInPackage: toPositive(f.qtyInPackage),
      price,
      allowDiscount: toFlag(f.allowDiscount, true),
      itemStatus: toInt(f.itemStatus),
      updatedAt: parseIsraelDateTime(textOf(f.updatedAt)?.trim()),
    };
  }
  items.length = count;
  const warnings: string[] = [];
  if (noCode) warnings.push(`${noCode} price rows without ItemCode skipped`);
  if (noPrice) warnings.push(`${noPrice} price rows without a readable ItemPrice skipped`);
  const first = rows[0]?.node;
  const fromRow = first ? (PRICE_FIELDS.read(first)) : {};
  return {
    file: {
      kind: "prices",
      chainCode: stripCode(fromContext(header, HEADER_FIELDS.chainCode) ?? fromRow.chainCode),
      subChainCode: stripCode(fromContext(header, HEADER_FIELDS.subChainCode) ?? fromRow.subChainCode),
      storeCode: stripCode(fromContext(header, HEADER_FIELDS.storeCode) ?? fromRow.storeCode),
      items,
    },
    warnings,
  };
}
