/**
 * Hand-written files in the shapes the chains publish (research notes §3–4, the real samples in
 * ../shared/samples/real/): Bina price and promotion files (no BOM, CRLF, `ItemNm`, a separate
 * `GiftsItems` list), Cerberus Stores (`Root/SubChains/SubChain/Stores/Store` with
 * `LastUpdateDate`/`LastUpdateTime`), Matrix/Laib Stores (`<Store Date= Time=><Branches><Branch>`
 * with two chain ids). Every value is made up; only the shapes are real.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const CRLF = "\r\n";

export interface ShapeItem {
  code: string;
  /** ILS as published (`5.90`). */
  price: string;
  name?: string;
  type?: 0 | 1;
  updated?: string;
}

/** A Bina-style PriceFull / Price (King Store, Maayan 2000): `<Root>` with `<Items><Item>`, `ItemNm`. */
export function binaPriceXml(chainCode: string, storeCode: string, items: ShapeItem[]): string {
  const rows = items.map((i) =>
    [
      "    <Item>",
      `      <PriceUpdateDate>${i.updated ?? "2026-11-20 08:00:00"}</PriceUpdateDate>`,
      `      <ItemCode>${i.code}</ItemCode>`,
      `      <ItemType>${i.type ?? 1}</ItemType>`,
      `      <ItemNm>${i.name ?? `מוצר ${i.code}`}</ItemNm>`,
      "      <ManufacturerName>לא ידוע</ManufacturerName>",
      "      <ManufactureCountry>IL</ManufactureCountry>",
      `      <ManufacturerItemDescription>${i.name ?? `מוצר ${i.code}`}</ManufacturerItemDescription>`,
      "      <UnitQty>00000</UnitQty>",
      "      <Quantity>1</Quantity>",
      "      <UnitOfMeasure>00000</UnitOfMeasure>",
      "      <bIsWeighted>0</bIsWeighted>",
      "      <QtyInPackage>0.0000</QtyInPackage>",
      `      <ItemPrice>${i.price}</ItemPrice>`,
      `      <UnitOfMeasurePrice>${i.price}</UnitOfMeasurePrice>`,
      "      <AllowDiscount>1</AllowDiscount>",
      "      <ItemStatus>1</ItemStatus>",
      "    </Item>",
    ].join(CRLF),
  );
  return ["<Root>", `  <ChainId>${chainCode}</ChainId>`, "  <SubChainId>1</SubChainId>", `  <StoreId>${storeCode}</StoreId>`, "  <BikoretNo>8</BikoretNo>", "  <Items>", ...rows, "  </Items>", "</Root>", ""].join(CRLF);
}

export interface ShapePromotion {
  id: string;
  description?: string;
  start?: string;
  startHour?: string;
  end?: string;
  endHour?: string;
  minQty?: string;
  discountedPrice?: string;
  /** Item codes bought. */
  items: string[];
  /** Item codes given away (`GiftsItems`). */
  gifts?: string[];
  clubId?: string;
}

/** A Bina-style PromoFull with `PromotionItems` and the separate `GiftsItems` list. */
export function binaPromoXml(chainCode: string, storeCode: string, promotions: ShapePromotion[]): string {
  const itemRow = (code: string, gift: boolean) =>
    `        <Item>${CRLF}          <ItemCode>${code}</ItemCode>${CRLF}          <ItemType>1</ItemType>${CRLF}          <IsGiftItem>${gift ? 1 : 0}</IsGiftItem>${CRLF}        </Item>`;
  const rows = promotions.map((p) =>
    [
      "    <Promotion>",
      `      <PromotionId>${p.id}</PromotionId>`,
      `      <PromotionDescription>${p.description ?? `מבצע ${p.id}`}</PromotionDescription>`,
      "      <PromotionUpdateDate>2026-11-01 00:00:00</PromotionUpdateDate>",
      `      <PromotionStartDate>${p.start ?? "2026-11-01"}</PromotionStartDate>`,
      `      <PromotionStartHour>${p.startHour ?? "00:00:00"}</PromotionStartHour>`,
      `      <PromotionEndDate>${p.end ?? "2026-12-31"}</PromotionEndDate>`,
      `      <PromotionEndHour>${p.endHour ?? "23:59:00"}</PromotionEndHour>`,
      "      <RewardType>1</RewardType>",
      "      <AllowMultipleDiscounts>0</AllowMultipleDiscounts>",
      `      <MinQty>${p.minQty ?? "1.00"}</MinQty>`,
      `      <DiscountedPrice>${p.discountedPrice ?? "5.00"}</DiscountedPrice>`,
      "      <MinNoOfItemOfered>1</MinNoOfItemOfered>",
      "      <AdditionalRestrictions>",
      "        <AdditionalIsCoupon>0</AdditionalIsCoupon>",
      `        <AdditionalGiftCount>${p.gifts?.length ? 1 : 0}</AdditionalGiftCount>`,
      "      </AdditionalRestrictions>",
      `      <Clubs>${CRLF}        <ClubId>${p.clubId ?? "0"}</ClubId>${CRLF}      </Clubs>`,
      `      <PromotionItems Count="${p.items.length}">`,
      ...p.items.map((c) => itemRow(c, false)),
      "      </PromotionItems>",
      ...(p.gifts
        ? [`      <GiftsItems Count="${p.gifts.length}">`, ...p.gifts.map((c) => itemRow(c, true)), "      </GiftsItems>"]
        : []),
      "    </Promotion>",
    ].join(CRLF),
  );
  return [
    "<Root>",
    `  <ChainId>${chainCode}</ChainId>`,
    "  <SubChainId>1</SubChainId>",
    `  <StoreId>${storeCode}</StoreId>`,
    "  <BikoretNo>8</BikoretNo>",
    `  <Promotions Count="${promotions.length}">`,
    ...rows,
    "  </Promotions>",
    "</Root>",
    "",
  ].join(CRLF);
}

export interface ShapeStore {
  code: string;
  name?: string;
  city?: string;
  /** Matrix files carry the chain id per branch. */
  chainCode?: string;
}

/** A Cerberus Stores file: one line, UTF-8 BOM, `LastUpdateDate`/`LastUpdateTime` in the header. */
export function cerberusStoresXml(chainCode: string, stores: ShapeStore[], updated: { date: string; time: string } | null, subChain = "1"): string {
  const rows = stores
    .map(
      (s) =>
        `<Store><StoreId>${s.code}</StoreId><BikoretNo>6</BikoretNo><StoreType>1</StoreType><StoreName>${s.name ?? `סניף ${s.code}`}</StoreName><Address>האומן 15</Address><City>${s.city ?? "ירושלים"}</City><ZipCode>unknown</ZipCode></Store>`,
    )
    .join("");
  const header = updated ? `<LastUpdateDate>${updated.date}</LastUpdateDate><LastUpdateTime>${updated.time}</LastUpdateTime>` : "";
  return `\uFEFF<Root><ChainId>${chainCode}</ChainId><ChainName>רשת</ChainName><XmlDocVersion>00000</XmlDocVersion>${header}<SubChains><SubChain><SubChainId>${subChain}</SubChainId><SubChainName>${subChain}</SubChainName><Stores>${rows}</Stores></SubChain></SubChains></Root>`;
}

/** A Matrix/Laib Stores file: `<Store Date="dd/MM/yy" Time=…><Branches><Branch>`, chain id per branch. */
export function matrixStoresXml(stores: ShapeStore[], date: string, time: string): string {
  const rows = stores.map((s) =>
    [
      "    <Branch>",
      `      <ChainID>${s.chainCode}</ChainID>`,
      "      <SubChainID>001</SubChainID>",
      `      <StoreID>${s.code.padStart(3, "0")}</StoreID>`,
      "      <BikoretNo />",
      "      <StoreType>1</StoreType>",
      "      <ChainName>ויקטורי</ChainName>",
      "      <SubChainName>ויקטורי</SubChainName>",
      `      <StoreName>${s.name ?? `סניף ${s.code}`}</StoreName>`,
      "      <Address>הכישור 8</Address>",
      `      <City>${s.city ?? "גן יבנה"}</City>`,
      "      <ZIPCode>7080000</ZIPCode>",
      "      <LastUpdateDate>25/07/2022 09:55:14</LastUpdateDate>",
      "      <Latitude />",
      "      <Longitude />",
      "    </Branch>",
    ].join("\n"),
  );
  return ['<?xml version="1.0" encoding="utf-8"?>', `<Store Date="${date}" Time="${time}">`, "  <Branches>", ...rows, "  </Branches>", "</Store>", ""].join("\n");
}

/** Writes `files` (name → text) into `dir` and returns their paths. */
export function writeFiles(dir: string, files: Record<string, string>): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(files).map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
}
