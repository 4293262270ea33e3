import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "bun:test";
import { openDataDir } from "../../../src/db/open.ts";
import { importPaths } from "../../../src/ingest/run/import.ts";
import { loadRegistry } from "../../../src/registry.ts";

export const RAMI_LEVY_CODE = "7290058140886";

/**
 * A PriceFull file of one Rami Levy store (the chain's own layout), written by hand: `items` maps
 * item code → price in agorot. Day `day` of November 2026.
 */
export function writePriceFull(dir: string, day: number, store: string, items: Record<string, number>): string {
  mkdirSync(dir, { recursive: true });
  const stamp = `202611${String(day).padStart(2, "0")}0500`;
  const rows = Object.entries(items)
    .map(
      ([code, agorot]) => `<Item><PriceUpdateDate>2026-11-${String(day).padStart(2, "0")} 04:00:00</PriceUpdateDate><ItemCode>${code}</ItemCode><ItemType>1</ItemType>
<ItemName>מוצר בדיקה ${code}</ItemName><ManufacturerName>יצרן</ManufacturerName><ManufactureCountry>ישראל</ManufactureCountry><ManufacturerItemDescription>מוצר</ManufacturerItemDescription>
<UnitQty>גרמים</UnitQty><Quantity>500.00</Quantity><UnitOfMeasure>100 גרם</UnitOfMeasure><bIsWeighted>0</bIsWeighted><QtyInPackage>1</QtyInPackage>
<ItemPrice>${(agorot / 100).toFixed(2)}</ItemPrice><UnitOfMeasurePrice>1.00</UnitOfMeasurePrice><AllowDiscount>1</AllowDiscount><ItemStatus>1</ItemStatus></Item>`,
    )
    .join("\n");
  const xml = `<?xml version="1.0" encoding="utf-8"?>
<Root><XmlDocVersion>19</XmlDocVersion><ChainId>${RAMI_LEVY_CODE}</ChainId><SubChainId>1</SubChainId><StoreId>${store}</StoreId><BikoretNo>7</BikoretNo><DllVerNo>9.4.0.50</DllVerNo>
<Items Count="${Object.keys(items).length}">
${rows}
</Items></Root>`;
  const path = join(dir, `PriceFull${RAMI_LEVY_CODE}-${store}-${stamp}.xml`);
  writeFileSync(path, xml);
  return path;
}

/**
 * Writes day `day`'s PriceFull of one Rami Levy store (001) under `root` and imports it into the
 * data dir on connections of its own, as `mehir import` does beside a running server.
 */
export async function importStoreDay(root: string, dataDir: string, day: number, items: Record<string, number>): Promise<void> {
  const dir = join(root, `day${day}`);
  writePriceFull(dir, day, "001", items);
  const db = openDataDir(dataDir);
  try {
    expect((await importPaths({ db: db.prices, registry: loadRegistry(), paths: [dir], origin: "cli", source: "live" })).status).not.toBe("failed");
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}
