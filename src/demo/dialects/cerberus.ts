import { fmt } from "../clock.ts";
import { rowKey, type DialectWriter, type PricesDocument, type PromosDocument, type StoresDocument } from "../documents.ts";
import { measure } from "../measures.ts";
import { ils } from "../pricing.ts";
import type { Profile } from "../profiles.ts";
import type { DemoStore } from "../stores.ts";
import { XmlWriter } from "../xml.ts";
import { countryText, internalId, itemName } from "./common.ts";

/**
 * Cerberus ("publishedprices") files, as Rami Levy, Super Cofix, Osher Ad… publish them:
 * UTF-8 with BOM, CRLF, `XmlDocVersion` 19 and `DllVerNo`, `Items Count=`; the stores file is
 * one long line. Politzer's are windows-1255 and Tiv Taam's stores file UTF-16, each with a
 * declaration naming the encoding.
 */
export const cerberusWriter: DialectWriter = {
  stores(doc, profile) {
    const x = new XmlWriter({ indent: null, eol: "\r\n", empty: "tight", escapeQuotes: false });
    x.raw(declaration(profile.storesEncoding));
    x.open("Root")
      .leaf("ChainId", profile.storesCode ?? doc.code)
      .leaf("ChainName", profile.storesChainName ?? doc.chainName)
      .leaf("XmlDocVersion", "00000")
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
          .leaf("Address", s.address)
          .leaf("City", s.city || "unknown")
          .leaf("ZipCode", s.zip || "unknown")
          .close("Store");
      }
      x.close("Stores").close("SubChain");
    }
    x.close("SubChains").close("Root");
    return x.toString() + "\r\n";
  },

  prices(doc, profile) {
    const x = header(doc, profile).encodedAs(doc.encoding, doc.sink);
    if (doc.rows.length === 0) x.emptyWith("Items", { Count: 0 });
    else {
      x.open("Items", { Count: doc.rows.length });
      const style = profile.itemId && profile.countryStyle === "unknown" ? "cerberus-gram" : "cerberus";
      const unknownMaker = style === "cerberus-gram";
      for (const row of doc.rows) {
        const { item, price, updated } = row;
        x.cached(doc.rowCache, rowKey(row, ""), (x) => {
          const m = measure(item, price, style);
          const name = itemName(item, profile);
          x.open("Item")
            .safe("PriceUpdateDate", fmt.dateTime(updated))
            .safe("ItemCode", item.code)
            .leaf("ItemType", item.itemType)
            .leaf(profile.itemNm ? "ItemNm" : "ItemName", name)
            .leaf(profile.manufactureName ? "ManufactureName" : "ManufacturerName", unknownMaker ? "לא ידוע" : (item.manufacturer ?? "לא ידוע"))
            .leaf("ManufactureCountry", countryText(item, profile))
            .leaf(profile.manufactureName ? "ManufactureItemDescription" : "ManufacturerItemDescription", name)
            .leaf("UnitQty", m.unitQty)
            .safe("Quantity", m.quantity)
            .leaf("UnitOfMeasure", m.unitOfMeasure)
            .leaf("bIsWeighted", item.weighted ? 1 : 0)
            .leaf("QtyInPackage", m.qtyInPackage)
            .safe("ItemPrice", ils(price))
            .safe("UnitOfMeasurePrice", m.unitPrice)
            .leaf("AllowDiscount", item.itemType === 1 ? 1 : 0)
            .leaf("ItemStatus", 1);
          if (profile.itemId) x.leaf("ItemId", internalId(item));
          x.close("Item");
        });
      }
      x.close("Items");
    }
    return x.close("Root").toBytes();
  },

  promos(doc, profile) {
    const x = header(doc, profile);
    if (doc.promotions.length === 0) x.emptyWith("Promotions", { Count: 0 });
    else {
      x.open("Promotions", { Count: doc.promotions.length });
      for (const { promotion: p, items } of doc.promotions) {
        const junk = profile.junkPromoDates && Number(p.id) % 9 === 0;
        x.open("Promotion")
          .leaf("PromotionId", p.id)
          .leaf("PromotionDescription", p.description)
          .leaf("PromotionUpdateDate", junk ? "1899-12-30 00:00" : `${fmt.date(p.updated)} ${fmt.hm(p.updated)}`)
          .leaf("PromotionStartDate", fmt.date(p.start))
          .leaf("PromotionStartHour", fmt.time(p.start))
          .leaf("PromotionEndDate", fmt.date(p.end))
          .leaf("PromotionEndHour", fmt.time(p.end))
          .leaf("RewardType", p.rewardType)
          .leaf("AllowMultipleDiscounts", p.allowMultiple ? 1 : 0)
          .leaf("IsWeightedPromo", p.isWeighted ? 1 : 0)
          .open("AdditionalRestrictions")
          .leaf("AdditionalIsCoupon", p.isCoupon ? 1 : 0)
          .leaf("AdditionalGiftCount", p.giftCount)
          .leaf("AdditionalIsTotal", 0)
          .leaf("AdditionalIsActive", 1)
          .close("AdditionalRestrictions")
          .leaf("MinQty", p.minQty.toFixed(2));
        if (p.maxQty !== null) x.leaf("MaxQty", p.maxQty.toFixed(2));
        if (p.discountRate !== null) x.leaf("DiscountRate", p.discountRate.toFixed(2)).leaf("DiscountType", 0);
        if (p.minPurchase !== null) x.leaf(profile.minAmountTag ? "MinAmount" : "MinPurchaseAmnt", ils(p.minPurchase));
        if (p.discountedPrice !== null) {
          x.leaf("DiscountedPrice", ils(p.discountedPrice)).leaf("DiscountedPricePerMida", ils(Math.round(p.discountedPrice / p.minQty)));
        }
        x.leaf("MinNoOfItemOfered", items.length);
        if (p.isWeighted) x.leaf("WeightUnit", 1);
        x.open("PromotionItems");
        for (const { item, gift } of items) {
          x.open("Item").safe("ItemCode", item.code).leaf("ItemType", item.itemType).leaf("IsGiftItem", gift ? 1 : 0).close("Item");
        }
        x.close("PromotionItems").open("Clubs").leaf("ClubId", p.clubId).close("Clubs").close("Promotion");
      }
      x.close("Promotions");
    }
    return x.close("Root").toString().trimEnd();
  },
};

function header(doc: PricesDocument | PromosDocument, profile: Profile): XmlWriter {
  const x = new XmlWriter({ indent: "  ", eol: "\r\n", empty: "tight", escapeQuotes: false });
  x.raw(declaration(profile.encoding));
  return x
    .open("Root")
    .leaf("XmlDocVersion", 19)
    .leaf("ChainId", doc.code)
    .leaf("SubChainId", doc.store.subChain)
    .leaf("StoreId", doc.store.id)
    .leaf("BikoretNo", doc.store.bikoret)
    .leaf("DllVerNo", "9.4.0.50");
}

/** BOM-marked UTF-8 files carry no declaration; the others name their encoding. */
export function declaration(encoding: Profile["encoding"]): string {
  if (encoding === "windows-1255") return '<?xml version="1.0" encoding="windows-1255"?>\r\n';
  if (encoding === "utf16le") return '<?xml version="1.0" encoding="utf-16"?>\r\n';
  return "";
}

export function bySubChain(stores: DemoStore[]): Map<string, DemoStore[]> {
  const out = new Map<string, DemoStore[]>();
  for (const s of stores) {
    const list = out.get(s.subChain) ?? [];
    list.push(s);
    out.set(s.subChain, list);
  }
  return out;
}
