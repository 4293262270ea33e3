import { FieldMap } from "./fields.ts";

/** Item fields of PriceFull / Price in every dialect (research notes §4.1). */
export const PRICE_FIELDS = new FieldMap({
  updatedAt: ["PriceUpdateDate", "PriceUpdateTime", "PriceUpdateDateTime"],
  itemCode: ["ItemCode", "ItemBarcode"],
  itemType: ["ItemType"],
  name: ["ItemName", "ItemNm", "ItemNM"],
  manufacturer: ["ManufacturerName", "ManufactureName", "ManufacturerNm"],
  manufactureCountry: ["ManufactureCountry", "ManufacturerCountry"],
  description: ["ManufacturerItemDescription", "ManufactureItemDescription", "ItemDescription"],
  unitQty: ["UnitQty"],
  quantity: ["Quantity"],
  unitOfMeasure: ["UnitOfMeasure", "UnitMeasure", "UnitOfMeasureName"],
  isWeighted: ["bIsWeighted", "blsWeighted", "BisWeighted", "IsWeighted"],
  qtyInPackage: ["QtyInPackage"],
  price: ["ItemPrice", "Price"],
  allowDiscount: ["AllowDiscount"],
  itemStatus: ["ItemStatus"],
  chainCode: ["ChainId", "ChainID"],
  subChainCode: ["SubChainId", "SubChainID"],
  storeCode: ["StoreId", "StoreID"],
});
