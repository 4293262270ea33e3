import { fmt } from "../clock.ts";
import { rowKey, type DialectWriter } from "../documents.ts";
import { measure } from "../measures.ts";
import { ils } from "../pricing.ts";
import { XmlWriter } from "../xml.ts";
import { bySubChain } from "./cerberus.ts";
import { countryText, itemName } from "./common.ts";

/**
 * Bina Projects files (King Store, Maayan 2000, Good Pharm…): UTF-8 without BOM or
 * declaration, CRLF, `ItemNm`, no `XmlDocVersion`; promotions with lowercase `count=` and
 * clubs inside `AdditionalRestrictions`. Maayan 2000 publishes sizes as "00000".
 */
export const binaWriter: DialectWriter = {
  stores(doc, profile) {
    const x = writer();
    x.open("Root")
      .leaf("ChainId", doc.code)
      .leaf("ChainName", profile.storesChainName ?? doc.chainName)
      .leaf("LastUpdateDate", fmt.date(doc.time))
      .leaf("LastUpdateTime", fmt.time(doc.time))
      .open("SubChains");
    for (const [sub, stores] of bySubChain(doc.stores)) {
      x.open("SubChain").leaf("SubChainId", sub).leaf("SubChainName", stores[0]!.subChainName).open("Stores");
      for (const s of stores) {
        x.open("Store")
          .leaf("StoreId", String(Number(s.id)))
          .leaf("BikoretNo", s.bikoret)
          .leaf("StoreType", s.storeType)
          .leaf("StoreName", s.name)
          .leaf("Address", s.address || "unknown")
          .leaf("City", s.city || "unknown")
          .leaf("ZipCode", s.zip || "unknown")
          .close("Store");
      }
      x.close("Stores").close("SubChain");
    }
    return x.close("SubChains").close("Root").toString();
  },

  prices(doc, profile) {
    const x = writer().encodedAs(doc.encoding, doc.sink);
    x.open("Root").leaf("ChainId", doc.code).leaf("SubChainId", doc.store.subChain).leaf("StoreId", doc.store.id).leaf("BikoretNo", doc.store.bikoret);
    x.open("Items");
    const style = profile.zeroSizes ? "bina-zero" : "bina";
    for (const row of doc.rows) {
      const { item, price, updated } = row;
      x.cached(doc.rowCache, rowKey(row, ""), (x) => {
        const m = measure(item, price, style);
        const name = itemName(item, profile);
        x.open("Item")
          .safe("PriceUpdateDate", fmt.dateTime(updated))
          .safe("ItemCode", item.code)
          .leaf("ItemType", item.itemType)
          .leaf("ItemNm", name)
          .leaf("ManufacturerName", profile.zeroSizes ? "לא ידוע" : (item.manufacturer ?? "לא ידוע"))
          .leaf("ManufactureCountry", countryText(item, profile))
          .leaf("ManufacturerItemDescription", name)
          .leaf("UnitQty", m.unitQty)
          .safe("Quantity", m.quantity)
          .leaf("UnitOfMeasure", m.unitOfMeasure)
          .leaf("bIsWeighted", item.weighted ? 1 : 0)
          .leaf("QtyInPackage", m.qtyInPackage)
          .safe("ItemPrice", ils(price, profile.ending === "00"))
          .safe("UnitOfMeasurePrice", m.unitPrice)
          .leaf("AllowDiscount", item.itemType === 1 ? 1 : 0)
          .leaf("ItemStatus", 1)
          .close("Item");
      });
    }
    return x.close("Items").close("Root").toBytes();
  },

  promos(doc, profile) {
    const x = writer();
    x.open("Root").leaf("ChainId", doc.code).leaf("SubChainId", doc.store.subChain).leaf("StoreId", doc.store.id).leaf("BikoretNo", doc.store.bikoret);
    if (doc.promotions.length === 0) return x.emptyWith("Promotions", { count: 0 }, " />").close("Root").toString().trimEnd();
    x.open("Promotions", { count: doc.promotions.length });
    for (const { promotion: p, items } of doc.promotions) {
      x.open("Promotion")
        .leaf("PromotionId", p.id)
        .leaf("PromotionDescription", p.description)
        .leaf("PromotionUpdateDate", fmt.dateTime(p.updated))
        .leaf("PromotionStartDate", fmt.date(p.start))
        .leaf("PromotionStartHour", fmt.time(p.start))
        .leaf("PromotionEndDate", fmt.date(p.end))
        .leaf("PromotionEndHour", fmt.time(p.end))
        .leaf("RewardType", p.rewardType)
        .leaf("DiscountType", p.discountType)
        .leaf("DiscountRate", (p.discountRate ?? 0).toFixed(2))
        .leaf("AllowMultipleDiscounts", p.allowMultiple ? 1 : 0)
        .leaf("MinQty", p.minQty)
        .leaf(profile.upperMaxQty ? "MAXQTY" : "MaxQty", p.maxQty ?? 0)
        .leaf("DiscountedPrice", p.discountedPrice === null ? "0" : ils(p.discountedPrice, true))
        .leaf("DiscountedPricePerMida", p.discountedPrice === null ? "0" : ils(Math.round(p.discountedPrice / p.minQty), true))
        .leaf("MinNoOfItemOfered", items.length)
        .open("AdditionalRestrictions")
        .leaf("AdditionalIsCoupon", p.isCoupon ? 1 : 0)
        .leaf("AdditionalGiftCount", p.giftCount)
        .open("Clubs")
        .leaf("ClubId", p.clubId)
        .close("Clubs")
        .leaf("AdditionalIsTotal", 0)
        .leaf("AdditionalIsActive", 1)
        .close("AdditionalRestrictions")
        .open("PromotionItems", { count: items.length });
      for (const { item, gift } of items) {
        x.open("Item").safe("ItemCode", item.code).leaf("IsGiftItem", gift ? 1 : 0).leaf("ItemType", item.itemType).close("Item");
      }
      x.close("PromotionItems")
        .leaf("Remarks", p.description.slice(0, 20).trimEnd())
        .leaf("MinPurchaseAmnt", p.minPurchase === null ? 0 : ils(p.minPurchase, true))
        .close("Promotion");
    }
    return x.close("Promotions").close("Root").toString().trimEnd();
  },
};

function writer(): XmlWriter {
  return new XmlWriter({ indent: "  ", eol: "\r\n", empty: "space", escapeQuotes: false });
}
