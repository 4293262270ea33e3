import { addMinutes, fmt } from "../clock.ts";
import { rowKey, type DialectWriter } from "../documents.ts";
import { measure } from "../measures.ts";
import { ils } from "../pricing.ts";
import { XmlWriter } from "../xml.ts";
import { countryText } from "./common.ts";

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\r\n';

/**
 * Matrix/Laib legacy files (Victory, Mahsanei HaShuk, H. Cohen): `ChainID`/`StoreID` casing,
 * `Prices/Products/Product` with `ManufactureName`, `UnitMeasure`, `BisWeighted`,
 * `itemStatus` and `YYYY/MM/DD HH:MM` dates; promotions one `Sale` row per item; stores as
 * `<Store Date= Time=><Branches><Branch>` with `dd/MM/yyyy` dates and empty coordinates.
 */
export const matrixWriter: DialectWriter = {
  stores(doc, profile) {
    const x = writer();
    x.raw(DECLARATION).open("Store", { Date: fmt.dmy2(doc.time), Time: fmt.time(doc.time) }).open("Branches");
    for (const s of doc.stores) {
      // H. Cohen's branches carry a placeholder update date.
      const updated = profile.placeholderBranchDates ? "01/01/0001 00:00:00" : fmt.dmyTime(addMinutes(doc.time, -(Number(s.id) * 1237) % 90000));
      x.open("Branch")
        .leaf("ChainID", s.code)
        .leaf("SubChainID", s.subChain)
        .leaf("StoreID", s.id)
        .leaf("BikoretNo", "")
        .leaf("StoreType", s.storeType)
        .leaf("ChainName", doc.chainName)
        .leaf("SubChainName", s.subChainName)
        .leaf("StoreName", s.name)
        .leaf("Address", s.address)
        .leaf("City", s.city)
        .leaf("ZIPCode", s.zip)
        .leaf("LastUpdateDate", updated)
        .leaf("Latitude", "")
        .leaf("Longitude", "")
        .close("Branch");
    }
    return x.close("Branches").close("Store").toString().trimEnd();
  },

  prices(doc, profile) {
    const x = writer().encodedAs(doc.encoding, doc.sink);
    x.raw(DECLARATION).open("Prices").leaf("ChainID", doc.code).leaf("SubChainID", doc.store.subChain).leaf("StoreID", doc.store.id).leaf("BikoretNo", "000");
    x.open("Products");
    for (const row of doc.rows) {
      const { item, price, updated } = row;
      x.cached(doc.rowCache, rowKey(row, ""), (x) => {
        const m = measure(item, price, "matrix");
        x.open("Product")
          .safe("PriceUpdateDate", fmt.slashDateHm(updated))
          .safe("ItemCode", item.code)
          .leaf("ItemType", item.itemType)
          .leaf("ItemName", item.name)
          .leaf("ManufactureName", item.manufacturer ?? "כללי")
          .leaf("ManufactureCountry", item.itemType === 1 ? countryText(item, profile) : "")
          .leaf("ManufactureItemDescription", "")
          .leaf("UnitQty", m.unitQty)
          .safe("Quantity", m.quantity)
          .leaf("UnitMeasure", m.unitOfMeasure)
          .leaf("BisWeighted", item.weighted ? 1 : 0)
          .leaf("QtyInPackage", m.qtyInPackage)
          .safe("ItemPrice", ils(price))
          .safe("UnitOfMeasurePrice", m.unitPrice)
          .leaf("AllowDiscount", item.itemType === 1 ? 1 : 0)
          .leaf("itemStatus", 1)
          .leaf("LastUpdateDate", "")
          .leaf("LastUpdateTime", "")
          .close("Product");
      });
    }
    return x.close("Products").close("Prices").toBytes();
  },

  promos(doc) {
    const x = writer();
    x.raw(DECLARATION).open("Promos").leaf("ChainID", doc.code).leaf("SubChainID", doc.store.subChain).leaf("StoreID", doc.store.id).leaf("BikoretNo", "000");
    x.open("Sales");
    for (const { promotion: p, items } of doc.promotions) {
      for (const { item, gift } of items) {
        x.open("Sale")
          .safe("PriceUpdateDate", fmt.slashDateHm(p.updated))
          .safe("ItemCode", item.code)
          .leaf("ItemType", item.itemType)
          .leaf("IsWeightedPromo", p.isWeighted ? 1 : 0)
          .leaf("RewardType", p.rewardType)
          .leaf("AllowMultipleDiscounts", p.allowMultiple ? 1 : 0)
          .leaf("PromotionID", p.id)
          .leaf("PromotionDescription", p.description)
          .leaf("PromotionStartDate", fmt.date(p.start))
          .leaf("PromotionStartHour", fmt.time(p.start))
          .leaf("PromotionEndDate", fmt.date(p.end))
          .leaf("PromotionEndHour", fmt.time(p.end))
          .leaf("ClubID", p.clubId)
          .leaf("MinQty", p.minQty.toFixed(2))
          .leaf("MaxQty", p.maxQty === null ? "" : p.maxQty.toFixed(2))
          .leaf("DiscountRate", p.discountRate === null ? "" : p.discountRate.toFixed(2))
          .leaf("DiscountType", p.discountType)
          .leaf("MinPurchaseAmount", p.minPurchase === null ? "" : ils(p.minPurchase))
          .leaf("DiscountedPrice", p.discountedPrice === null ? "" : ils(p.discountedPrice))
          .leaf("DiscountedPricePerMida", p.discountedPrice === null ? "" : ils(Math.round(p.discountedPrice / p.minQty)))
          .leaf("MinNoOfItemsOffered", items.length)
          .leaf("AdditionalsCoupon", p.isCoupon ? 1 : 0)
          .leaf("AdditionalsGiftCount", p.giftCount)
          .leaf("IsGiftItem", gift ? 1 : 0)
          .leaf("Remarks", "")
          .close("Sale");
      }
    }
    return x.close("Sales").close("Promos").toString().trimEnd();
  },
};

function writer(): XmlWriter {
  return new XmlWriter({ indent: "  ", eol: "\r\n", empty: "space", escapeQuotes: false });
}
