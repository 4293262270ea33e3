import { FieldMap } from "./fields.ts";

/** Store fields of Stores / StoresFull in every dialect (research notes §4.3). */
export const STORE_FIELDS = new FieldMap({
  chainCode: ["ChainId", "ChainID", "CHAINID"],
  chainName: ["ChainName", "CHAINNAME"],
  subChainCode: ["SubChainId", "SubChainID", "SUBCHAINID"],
  subChainName: ["SubChainName", "SUBCHAINNAME"],
  storeCode: ["StoreId", "StoreID", "STOREID"],
  storeType: ["StoreType", "STORETYPE"],
  name: ["StoreName", "STORENAME", "BranchName"],
  address: ["Address", "ADDRESS", "StoreAddress"],
  city: ["City", "CITY", "CityName"],
  zip: ["ZipCode", "ZIPCode", "ZIPCODE", "ZipCod"],
  updatedAt: ["LastUpdateDate", "LASTUPDATEDATE"],
  latitude: ["Latitude", "LATITUDE", "Lat"],
  longitude: ["Longitude", "LONGITUDE", "Lon", "Lng"],
});
