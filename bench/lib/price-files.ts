/**
 * Synthetic price-transparency files shaped like the national data (research notes §6): Cerberus
 * layout (BOM, pretty-printed `Root/Items/Item`), ~3,500 items per store, GTINs shared across
 * chains plus a few chain-internal codes, gzip. Day 2 changes ~3 % of prices, drops ~1 % of
 * items and adds ~1 %. Used by bench/import.ts and the import tests (kill test).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadRegistry } from "../../src/registry.ts";
import { hash32, unit } from "./rng.ts";

export interface FilesPlan {
  stores: number;
  itemsPerStore: number;
  /** Size of the product pool the stores draw from. */
  products: number;
  /** Chains the stores are spread over (registry chains, first N). */
  chains: number;
  /** Also write a PromoFull per store. */
  promos: boolean;
  /** Plain XML instead of gzip. */
  plain?: boolean;
}

export interface WrittenFiles {
  paths: string[];
  priceRows: number;
  bytes: number;
}

const WORDS = ["חלב", "גבינה", "לחם", "שוקולד", "במבה", "קפה", "תה", "אורז", "פסטה", "שמן", "סוכר", "קמח", "יוגורט", "מיץ", "מים", "ביסלי", "טחינה", "חומוס", "עוגיות", "דגני"];
const MAKERS = ["תנובה", "שטראוס", "אסם", "עלית", "טרה", "יטבתה", "ויסוצקי", "סוגת", "לא ידוע"];
const UNITS: [string, string, number][] = [["גרמים", "100 גרם", 500], ["מיליליטרים", "100 מ\"ל", 1000], ["יחידה", "יחידה", 1]];

function gtin(n: number): string {
  const body = `729${String(n).padStart(9, "0")}`;
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += (body.charCodeAt(i) - 48) * w;
  return body + ((10 - (sum % 10)) % 10);
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
const money = (agorot: number) => `${Math.floor(agorot / 100)}.${pad(agorot % 100)}`;

interface Item {
  code: string;
  type: number;
  name: string;
  maker: string;
  unit: [string, string, number];
  price: number;
  /** PriceUpdateDate: when the price last changed. */
  updated: string;
}

/**
 * The items store `s` of chain `c` publishes on `day` (1 = baseline, 2+ = later days). A chain's
 * assortment is a window of 1.6 × itemsPerStore products; each store carries a contiguous
 * stretch of it, so stores of a chain share most items (as real chains do).
 */
function storeItems(plan: FilesPlan, chain: number, store: number, day: number): Item[] {
  const items: Item[] = [];
  const stride = [7, 11, 13, 17, 19, 23, 29, 31][chain % 8]!;
  const base = hash32(chain, 17) % plan.products;
  const width = Math.ceil(plan.itemsPerStore * 1.6);
  const shift = hash32(store, 17) % (width - plan.itemsPerStore + 1);
  const extra = Math.ceil(plan.itemsPerStore * 0.01);
  for (let k = 0; k < plan.itemsPerStore + extra; k++) {
    const isExtra = k >= plan.itemsPerStore;
    // ~1 % of items leave on later days, and as many arrive.
    if (day > 1 && !isExtra && unit(store, k, 5) < 0.01) continue;
    if (isExtra && day === 1) continue;
    const j = shift + k;
    const internal = j % 33 === 5;
    const p = (base + j * stride) % plan.products;
    const basePrice = 100 + (hash32(p, 1) % 4900);
    const chainFactor = 0.9 + (hash32(chain, 2) % 20) / 100;
    // Most stores of a chain charge the chain price; some deviate a little.
    let price = Math.round(basePrice * chainFactor) + (hash32(store, p) % 5 === 0 ? hash32(store, p, 3) % 30 : 0);
    let updated = "2026-11-01 01:00:00";
    if (day > 1 && unit(store, k, day) < 0.03) {
      price += 10 + (hash32(store, k, day) % 90);
      updated = `2026-11-${pad(20 + day)} 01:00:00`;
    }
    items.push({
      code: internal ? String(100000 + p) : gtin(p),
      type: internal ? 0 : 1,
      name: `${WORDS[p % WORDS.length]} ${WORDS[(p >> 3) % WORDS.length]} ${p % 1000}`,
      maker: MAKERS[p % MAKERS.length]!,
      unit: UNITS[p % UNITS.length]!,
      price,
      updated,
    });
  }
  return items;
}

function header(chainCode: string, storeCode: number): string {
  return `\uFEFF<Root>\n  <XmlDocVersion>19</XmlDocVersion>\n  <ChainId>${chainCode}</ChainId>\n  <SubChainId>1</SubChainId>\n  <StoreId>${pad(storeCode, 3)}</StoreId>\n  <BikoretNo>5</BikoretNo>\n  <DllVerNo>9.4.0.50</DllVerNo>\n`;
}

/** A Cerberus-style PriceFull document. */
export function priceFullXml(chainCode: string, storeCode: number, items: Item[]): string {
  const parts = [header(chainCode, storeCode), `  <Items Count="${items.length}">\n`];
  for (const it of items) {
    parts.push(
      `    <Item>\n      <PriceUpdateDate>${it.updated}</PriceUpdateDate>\n      <ItemCode>${it.code}</ItemCode>\n      <ItemType>${it.type}</ItemType>\n` +
        `      <ItemName>${it.name}</ItemName>\n      <ManufacturerName>${it.maker}</ManufacturerName>\n      <ManufactureCountry>IL</ManufactureCountry>\n` +
        `      <ManufacturerItemDescription>${it.name}</ManufacturerItemDescription>\n      <UnitQty>${it.unit[0]}</UnitQty>\n` +
        `      <Quantity>${it.unit[2]}.00</Quantity>\n      <UnitOfMeasure>${it.unit[1]}</UnitOfMeasure>\n      <bIsWeighted>0</bIsWeighted>\n` +
        `      <QtyInPackage>1</QtyInPackage>\n      <ItemPrice>${money(it.price)}</ItemPrice>\n      <UnitOfMeasurePrice>0.00</UnitOfMeasurePrice>\n` +
        `      <AllowDiscount>1</AllowDiscount>\n      <ItemStatus>1</ItemStatus>\n    </Item>\n`,
    );
  }
  parts.push("  </Items>\n</Root>\n");
  return parts.join("");
}

/** A Cerberus-style PromoFull document: promotions over the store's first items. */
export function promoFullXml(chainCode: string, storeCode: number, items: Item[], count: number): string {
  const parts = [header(chainCode, storeCode), `  <Promotions Count="${count}">\n`];
  for (let i = 0; i < count; i++) {
    const members = items.slice(i * 3, i * 3 + 3);
    parts.push(
      `    <Promotion>\n      <PromotionId>${1000 + i}</PromotionId>\n      <PromotionDescription>${members[0]?.name ?? "מבצע"} 2 ב-10</PromotionDescription>\n` +
        `      <PromotionUpdateDate>2026-11-01 00:00</PromotionUpdateDate>\n      <PromotionStartDate>2026-11-01</PromotionStartDate>\n` +
        `      <PromotionStartHour>00:00:00</PromotionStartHour>\n      <PromotionEndDate>2026-12-31</PromotionEndDate>\n      <PromotionEndHour>23:59:00</PromotionEndHour>\n` +
        `      <RewardType>1</RewardType>\n      <AllowMultipleDiscounts>1</AllowMultipleDiscounts>\n      <IsWeightedPromo>0</IsWeightedPromo>\n` +
        `      <MinQty>2.00</MinQty>\n      <DiscountedPrice>10.00</DiscountedPrice>\n      <PromotionItems>\n` +
        members.map((m) => `        <Item>\n          <ItemCode>${m.code}</ItemCode>\n          <ItemType>${m.type}</ItemType>\n          <IsGiftItem>0</IsGiftItem>\n        </Item>\n`).join("") +
        `      </PromotionItems>\n      <Clubs>\n        <ClubId>0</ClubId>\n      </Clubs>\n    </Promotion>\n`,
    );
  }
  parts.push("  </Promotions>\n</Root>\n");
  return parts.join("");
}

/** A Cerberus-style Stores document for a chain's stores. */
export function storesXml(chainCode: string, stores: number[]): string {
  const cities = ["תל אביב-יפו", "חיפה", "ירושלים", "באר שבע", "אילת", "נתניה"];
  const rows = stores.map(
    (s) =>
      `<Store><StoreId>${s}</StoreId><BikoretNo>1</BikoretNo><StoreType>1</StoreType><StoreName>סניף ${s}</StoreName>` +
      `<Address>רחוב ${s}</Address><City>${cities[s % cities.length]}</City><ZipCode>0</ZipCode></Store>`,
  );
  return `\uFEFF<Root><ChainId>${chainCode}</ChainId><ChainName>רשת</ChainName><XmlDocVersion>19</XmlDocVersion><LastUpdateDate>2026-11-01</LastUpdateDate><LastUpdateTime>05:00:00</LastUpdateTime><SubChains><SubChain><SubChainId>1</SubChainId><SubChainName>1</SubChainName><Stores>${rows.join("")}</Stores></SubChain></SubChains></Root>`;
}

/** Chain codes of the first `n` registry chains with a 13-digit code. */
export function planChains(n: number): string[] {
  return loadRegistry()
    .chains.map((c) => c.chain_codes[0]!)
    .filter((c) => c.length === 13)
    .slice(0, n);
}

/**
 * Writes one day's files (Stores per chain, PriceFull and optionally PromoFull per store) into
 * `dir`; stores are spread round-robin over the chains. `day` varies the prices; `date` (YYYYMMDD) is the files' date
 * (default 2026-11-(20 + day)).
 */
export function writeDay(dir: string, plan: FilesPlan, day: number, date = `202611${pad(20 + day)}`): WrittenFiles {
  mkdirSync(dir, { recursive: true });
  const chains = planChains(plan.chains);
  const ext = plan.plain ? "xml" : "gz";
  const out: WrittenFiles = { paths: [], priceRows: 0, bytes: 0 };
  const write = (name: string, xml: string) => {
    const data = plan.plain ? Buffer.from(xml) : Bun.gzipSync(Buffer.from(xml), { level: 6 });
    const path = join(dir, `${name}.${ext}`);
    writeFileSync(path, data);
    out.paths.push(path);
    out.bytes += data.length;
  };
  const byChain = new Map<number, number[]>();
  for (let s = 1; s <= plan.stores; s++) {
    const c = (s - 1) % chains.length;
    byChain.set(c, [...(byChain.get(c) ?? []), s]);
  }
  for (const [c, stores] of byChain) write(`Stores${chains[c]}-${date}0100`, storesXml(chains[c]!, stores));
  for (let s = 1; s <= plan.stores; s++) {
    const c = (s - 1) % chains.length;
    const items = storeItems(plan, c, s, day);
    const minute = s % 60;
    const hour = 2 + Math.floor((s % 180) / 60);
    const stamp = `${date}${pad(hour)}${pad(minute)}`;
    write(`PriceFull${chains[c]}-${pad(s, 3)}-${stamp}`, priceFullXml(chains[c]!, s, items));
    out.priceRows += items.length;
    if (plan.promos) write(`PromoFull${chains[c]}-${pad(s, 3)}-${stamp}`, promoFullXml(chains[c]!, s, items, 100));
  }
  return out;
}
