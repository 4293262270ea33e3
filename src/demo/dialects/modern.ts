import { addMinutes, fmt } from "../clock.ts";
import { rowKey, type DialectWriter, type PricesDocument, type PromosDocument, type StorePromotion } from "../documents.ts";
import { measure } from "../measures.ts";
import { ils } from "../pricing.ts";
import type { Profile } from "../profiles.ts";
import { XmlWriter } from "../xml.ts";
import { bySubChain } from "./cerberus.ts";
import { countryText } from "./common.ts";

const WOLT_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/**
 * The 2025-26 "new" dialect: `ChainID/SubChainID/StoreID`, ISO `PriceUpdateTime`,
 * `LastSaleDateTime`, `ManufactureName`. Shufersal: pretty-printed, stores as `<Chain>` with
 * CBS city codes, promotions grouped (`Groups/Group/PromotionItems/PromotionItem`, `ClubID
 * "0 - כלל הלקוחות"`). Wolt: everything on one line with `standalone="yes"`, flat promotions.
 */
export const modernWriter: DialectWriter = {
  stores(doc, profile) {
    const x = new XmlWriter({ indent: null, eol: "\n", empty: "tight", escapeQuotes: false });
    if (profile.singleLine) x.raw(WOLT_DECLARATION);
    const root = profile.numericCities ? "Chain" : "Root";
    x.open(root)
      .leaf("ChainID", doc.code)
      .leaf("ChainName", profile.storesChainName ?? doc.chainName)
      .leaf("LastUpdateDate", fmt.date(doc.time))
      .leaf("LastUpdateTime", fmt.time(doc.time))
      .open("SubChains");
    for (const [sub, stores] of bySubChain(doc.stores)) {
      x.open("SubChain").leaf("SubChainID", sub).leaf("SubChainName", stores[0]!.subChainName).open("Stores");
      for (const s of stores) {
        x.open("Store")
          .leaf("StoreID", String(Number(s.id)))
          .leaf("BikoretNo", s.bikoret)
          .leaf("StoreType", s.storeType)
          .leaf("StoreName", s.name)
          .leaf("Address", s.address)
          .leaf("City", profile.numericCities && s.cityCode !== null ? String(s.cityCode) : s.city)
          .leaf("ZIPCode", s.zip)
          .close("Store");
      }
      x.close("Stores").close("SubChain");
    }
    return x.close("SubChains").close(root).toString();
  },

  prices(doc, profile) {
    const x = header(doc, profile).encodedAs(doc.encoding, doc.sink);
    x.open("Items");
    for (const row of doc.rows) {
      const { item, price, updated } = row;
      x.cached(doc.rowCache, rowKey(row, fmt.stamp12(doc.time)), (x) => {
        const m = measure(item, price, "modern");
        x.open("Item")
          .safe("PriceUpdateTime", fmt.isoNaive(updated))
          .safe("ItemCode", item.code)
          .safe("LastSaleDateTime", fmt.isoNaive(addMinutes(doc.time, -lastSaleLag(item.code))))
          .leaf("ItemType", item.itemType)
          .leaf("ItemName", item.name)
          .leaf("ManufactureName", item.manufacturer ?? "")
          .leaf("ManufactureCountry", countryText(item, profile))
          .leaf("ManufactureItemDescription", item.name)
          .leaf("UnitQty", m.unitQty)
          .safe("Quantity", m.quantity)
          .leaf("UnitOfMeasure", m.unitOfMeasure)
          .leaf("bIsWeighted", item.weighted ? 1 : 0)
          .leaf("QtyInPackage", m.qtyInPackage)
          .safe("ItemPrice", ils(price))
          .safe("UnitOfMeasurePrice", m.unitPrice)
          .leaf("AllowDiscount", item.itemType === 1 ? 1 : 0)
          .leaf("ItemStatus", "")
          .close("Item");
      });
    }
    return x.close("Items").close("Root").toBytes();
  },

  promos(doc, profile) {
    const x = header(doc, profile);
    if (doc.promotions.length === 0) return x.emptyWith("Promotions", {}).close("Root").toString().trimEnd();
    x.open("Promotions");
    for (const entry of doc.promotions) {
      if (profile.numericCities) grouped(x, entry);
      else flat(x, entry);
    }
    return x.close("Promotions").close("Root").toString().trimEnd();
  },
};

function grouped(x: XmlWriter, { promotion: p, items }: StorePromotion): void {
  const club = p.clubId === 0 ? "0 - כלל הלקוחות" : `${p.clubId} - חברי מועדון`;
  x.open("Promotion")
    .leaf("PromotionUpdateTime", fmt.isoMillis(p.updated))
    .leaf("AllowMultipleDiscounts", p.allowMultiple ? 1 : 0)
    .leaf("PromotionID", p.id)
    .leaf("PromotionDescription", p.description)
    .leaf("PromotionStartDateTime", fmt.isoMillis(p.start))
    .leaf("PromotionEndDateTime", fmt.isoMillis(p.end))
    .leaf("PromotionStartHour", `${fmt.time(p.start)}.000`)
    .leaf("PromotionEndHour", `${fmt.time(p.end)}.000`)
    .leaf("PromotionDays", "")
    .leaf("RedemptionLimit", 0)
    .leaf("MinNoOfItemOffered", 1)
    .leaf("ClubID", club)
    .leaf("IsGiftItem", p.giftCount > 0 ? 1 : "")
    .leaf("AdditionalIsCoupon", p.isCoupon ? 1 : 0)
    .leaf("AdditionalRestrictions", "")
    .leaf("Remarks", "")
    .open("Groups");
  const groups = [items.filter((i) => !i.gift), items.filter((i) => i.gift)].filter((g) => g.length > 0);
  groups.forEach((group, g) => {
    x.open("Group")
      .leaf("GroupID", g + 1)
      .leaf("MinPurchaseAmount", g === 0 && p.minPurchase !== null ? ils(p.minPurchase) : "")
      .leaf("DiscountType", p.discountType)
      .open("PromotionItems");
    for (const { item, gift } of group) {
      x.open("PromotionItem")
        .safe("ItemCode", item.code)
        .leaf("ItemType", item.itemType)
        .leaf("RewardType", gift ? 6 : p.rewardType)
        .leaf("MinQty", gift ? 1 : p.minQty)
        .leaf("MaxQty", p.maxQty ?? "")
        .leaf("DiscountRate", p.discountRate === null ? "" : p.discountRate.toFixed(2))
        .leaf("DiscountedPrice", gift ? "0.00" : p.discountedPrice === null ? "" : ils(p.discountedPrice))
        .leaf("DiscountedPricePerMida", gift || p.discountedPrice === null ? "" : ils(Math.round(p.discountedPrice / p.minQty)))
        .leaf("bIsWeighted", item.weighted ? 1 : 0)
        .close("PromotionItem");
    }
    x.close("PromotionItems").close("Group");
  });
  x.close("Groups").close("Promotion");
}

function flat(x: XmlWriter, { promotion: p, items }: StorePromotion): void {
  x.open("Promotion")
    .leaf("PromotionId", p.id)
    .leaf("PromotionDescription", p.description)
    .leaf("PromotionUpdateDate", fmt.dateTime(p.updated))
    .leaf("PromotionStartDate", fmt.date(p.start))
    .leaf("PromotionStartHour", fmt.time(p.start))
    .leaf("PromotionEndDate", fmt.date(p.end))
    .leaf("PromotionEndHour", fmt.time(p.end))
    .leaf("RewardType", p.rewardType)
    .leaf("AllowMultipleDiscounts", p.allowMultiple ? 1 : 0)
    .leaf("MinQty", p.minQty)
    .leaf("MaxQty", p.maxQty ?? "")
    .leaf("DiscountRate", p.discountRate === null ? "" : p.discountRate.toFixed(2))
    .leaf("DiscountType", p.discountType)
    .leaf("DiscountedPrice", p.discountedPrice === null ? "" : ils(p.discountedPrice))
    .leaf("MinPurchaseAmnt", p.minPurchase === null ? "" : ils(p.minPurchase))
    .leaf("MinNoOfItemOfered", items.length)
    .open("AdditionalRestrictions")
    .leaf("AdditionalIsCoupon", p.isCoupon ? 1 : 0)
    .leaf("AdditionalGiftCount", p.giftCount)
    .close("AdditionalRestrictions")
    .leaf("ClubId", p.clubId)
    .leaf("Remarks", "")
    .open("PromotionItems");
  for (const { item, gift } of items) {
    x.open("Item").safe("ItemCode", item.code).leaf("ItemType", item.itemType).leaf("IsGiftItem", gift ? 1 : 0).close("Item");
  }
  x.close("PromotionItems").close("Promotion");
}

function header(doc: PricesDocument | PromosDocument, profile: Profile): XmlWriter {
  const x = new XmlWriter({ indent: profile.singleLine ? null : "  ", eol: "\n", empty: profile.singleLine ? "tight" : "space", escapeQuotes: false });
  if (profile.singleLine) x.raw(WOLT_DECLARATION);
  return x
    .open("Root")
    .leaf("ChainID", doc.code)
    .leaf("SubChainID", doc.store.subChain.padStart(3, "0"))
    .leaf("StoreID", doc.store.id.padStart(3, "0"))
    .leaf("BikoretNo", profile.singleLine ? 0 : doc.store.bikoret);
}

/** Minutes since the item last sold: deterministic per code, up to two days. */
function lastSaleLag(code: string): number {
  let h = 7;
  for (const ch of code) h = (h * 33 + ch.charCodeAt(0)) % 2880;
  return 5 + h;
}
