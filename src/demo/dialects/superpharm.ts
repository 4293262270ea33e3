import { fmt } from "../clock.ts";
import { rowKey, type DialectWriter, type PricesDocument, type PromosDocument } from "../documents.ts";
import { measure } from "../measures.ts";
import { ils } from "../pricing.ts";
import { XmlWriter } from "../xml.ts";
import { countryText } from "./common.ts";

// The declaration says ISO-8859-8; the bytes are UTF-8 (honouring it gives mojibake).
const DECLARATION = '<?xml version="1.0" encoding="ISO-8859-8" standalone="no" ?>\r\n';

/**
 * Super-Pharm's legacy `OrderXml/Envelope/Header/Details/Line` files: tab-indented, CRLF,
 * `blsWeighted` (lowercase L), no `ItemType`, `PriceUpdateDate` as a plain date, quotes
 * escaped as entities; promotions one `Line` per item with `PromotionDetails`.
 */
export const superpharmWriter: DialectWriter = {
  stores(doc) {
    const x = writer();
    x.raw(DECLARATION).open("OrderXml", { "xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance" }).open("Envelope");
    x.leaf("ChainId", doc.code).leaf("SubChainId", 100).open("Header").open("Details");
    for (const s of doc.stores) {
      x.open("Line")
        .leaf("StoreId", String(Number(s.id)))
        .leaf("BikoretNo", 100)
        .leaf("StoreType", s.storeType)
        .leaf("ChainName", "סופר פארם ישראל")
        .leaf("SubChainName", "")
        .leaf("StoreName", s.name)
        .leaf("Address", s.address)
        .leaf("City", s.city)
        .leaf("ZipCode", s.zip || "0")
        .leaf("LastUpdateDate", fmt.date(doc.time))
        .leaf("LastUpdateTime", fmt.time(doc.time))
        .close("Line");
    }
    return x.close("Details").close("Header").close("Envelope").close("OrderXml").toString().trimEnd();
  },

  prices(doc, profile) {
    const x = envelope(doc).encodedAs(doc.encoding, doc.sink);
    if (doc.rows.length > 0) {
      x.open("Header").open("Details");
      for (const row of doc.rows) {
        const { item, price, updated } = row;
        x.cached(doc.rowCache, rowKey(row, ""), (x) => {
          const m = measure(item, price, "superpharm");
          x.open("Line")
            .safe("PriceUpdateDate", fmt.date(updated))
            .safe("ItemCode", item.code)
            .leaf("ItemName", item.name)
            .leaf("ManufacturerName", item.manufacturer ?? "General")
            .leaf("ManufactureCountry", countryText(item, profile))
            .leaf("ManufacturerItemDescription", item.name)
            .leaf("UnitQty", m.unitQty)
            .safe("Quantity", m.quantity)
            .leaf("UnitOfMeasure", m.unitOfMeasure)
            .leaf("blsWeighted", item.weighted ? 1 : 0)
            .leaf("QtyInPackage", m.qtyInPackage)
            .safe("ItemPrice", ils(price))
            .safe("UnitOfMeasurePrice", m.unitPrice)
            .leaf("AllowDiscount", 1)
            .leaf("ItemStatus", 0)
            .close("Line");
        });
      }
      x.close("Details").close("Header");
    }
    return x.close("Envelope").close("OrderXml").toBytes();
  },

  promos(doc) {
    const x = envelope(doc);
    if (doc.promotions.length > 0) {
      x.open("Header").open("Details");
      for (const { promotion: p, items } of doc.promotions) {
        for (const { item, gift } of items) {
          x.open("Line")
            .leaf("PromotionId", p.id)
            .leaf("PromotionDetails", p.description)
            .leaf("PromotionUpdateDate", fmt.dateTime(p.updated))
            .leaf("PromotionStartDate", fmt.date(p.start))
            .leaf("PromotionStartHour", fmt.time(p.start))
            .leaf("PromotionEndDate", fmt.date(p.end))
            .leaf("PromotionEndHour", fmt.time(p.end))
            .leaf("RewardType", p.rewardType)
            .leaf("AllowMultipleDiscounts", p.allowMultiple ? 1 : 0)
            .leaf("MinQty", p.minQty.toFixed(2))
            .leaf("MaxQty", p.maxQty === null ? "0.00" : p.maxQty.toFixed(2))
            .leaf("DiscountRate", (p.discountRate ?? 0).toFixed(2))
            .leaf("DiscountedPrice", p.discountedPrice === null ? "0.00" : ils(p.discountedPrice))
            .leaf("MinPurchaseAmnt", p.minPurchase === null ? "0.00" : ils(p.minPurchase))
            .leaf("ClubId", p.clubId)
            .leaf("AdditionalIsCoupon", p.isCoupon ? 1 : 0)
            .leaf("AdditionalGiftCount", p.giftCount)
            .safe("ItemCode", item.code)
            .leaf("IsGiftItem", gift ? 1 : 0)
            .close("Line");
        }
      }
      x.close("Details").close("Header");
    }
    return x.close("Envelope").close("OrderXml").toString().trimEnd();
  },
};

function envelope(doc: PricesDocument | PromosDocument): XmlWriter {
  return writer()
    .raw(DECLARATION)
    .open("OrderXml", { "xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance" })
    .open("Envelope")
    .leaf("ChainId", doc.code)
    .leaf("SubChainId", 100)
    .leaf("StoreId", String(Number(doc.store.id)))
    .leaf("BikoretNo", 100);
}

function writer(): XmlWriter {
  return new XmlWriter({ indent: "\t", eol: "\r\n", empty: "pair", escapeQuotes: true });
}
