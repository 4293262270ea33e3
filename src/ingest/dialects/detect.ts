import { SHARED_ROW, kindOfElement } from "./row-elements.ts";
import type { XmlNode } from "../files/xml.ts";
import type { FileType, ParsedFile } from "../records.ts";
import { localName } from "../files/xml-scan.ts";
import { elements } from "./tree.ts";

export type Dialect = "cerberus" | "bina" | "matrix" | "superpharm" | "shufersal-sap" | "tivtaam" | "new";
export type Kind = ParsedFile["kind"];

export interface Detected {
  dialect: Dialect;
  /** What the content holds; null when it cannot tell (an empty Super-Pharm envelope). */
  kind: Kind | null;
}

const CONTAINERS: Record<string, Kind> = {
  items: "prices",
  products: "prices",
  promotions: "promos",
  sales: "promos",
  subchains: "stores",
  stores: "stores",
  branches: "stores",
};

// Tags only the 2025–26 format writes.
const NEW_MARKERS = new Set(["priceupdatetime", "lastsaledatetime", "promotionupdatetime", "promotionstartdatetime", "groups"]);

/**
 * What a row element holds, by its name: `Item`/`Product` prices, `Promotion`/`Sale` promotions,
 * `Store`/`Branch` stores; a Super-Pharm `Line` (shared by all three) by its fields.
 *
 * @example kindOfRow("Branch", {}) // "stores"
 */
export function kindOfRow(name: string, row: XmlNode): Kind | null {
  const element = localName(name);
  return element === SHARED_ROW ? kindOfLine(row) : kindOfElement(element);
}

function kindOfLine(line: XmlNode): Kind | null {
  const names = Object.keys(line).map(localName);
  if (names.includes("promotionid") || names.includes("promotiondetails") || names.includes("promotiondescription")) return "promos";
  if (names.includes("itemprice") || names.includes("itemcode")) return "prices";
  if (names.includes("storename") || names.includes("storeid")) return "stores";
  return null;
}

/** Breadth-first look at the first levels for a list container or row that tells the kind. */
function kindOf(root: XmlNode): Kind | null {
  let level: XmlNode[] = [root];
  for (let depth = 0; depth < 5 && level.length; depth++) {
    const next: XmlNode[] = [];
    for (const node of level) {
      for (const tag in node) {
        const name = localName(tag);
        if (name === "schema") continue;
        const kind = CONTAINERS[name];
        if (kind) return kind;
        if (name === "line") {
          const first = elements(node[tag])[0];
          if (first) return kindOfLine(first);
        }
        if (name === "item") return "prices"; // Tiv Taam `NewDataSet/item`
        if (name === "store") return "stores"; // SAP `STORE` directly in `asx:values`
        next.push(...elements(node[tag]));
      }
    }
    level = next;
  }
  return null;
}

/** Tags of the first levels (first element of each list) for dialect markers. */
function sampleTags(root: XmlNode, firstRow: XmlNode | null): Set<string> {
  const tags = new Set<string>(firstRow ? Object.keys(firstRow) : []);
  let level: XmlNode[] = [root];
  for (let depth = 0; depth < 4 && level.length; depth++) {
    const next: XmlNode[] = [];
    for (const node of level) {
      for (const tag in node) {
        tags.add(tag);
        next.push(...elements(node[tag]).slice(0, 1));
      }
    }
    level = next;
  }
  return tags;
}

/**
 * Tells the dialect from the root element, and the record kind from the first list container
 * (`Items`/`Products` → prices, `Promotions`/`Sales` → promos, `SubChains`/`Stores`/`Branches`
 * → stores, Super-Pharm `Line` by its fields; or from the first streamed row, see
 * {@link kindOfRow}). Roots: `OrderXml` Super-Pharm, `asx:abap`
 * Shufersal SAP, `NewDataSet` Tiv Taam, `Prices`/`Promos`/`Store` Matrix/Laib, `Chain` 2026
 * Shufersal stores, `Root` Cerberus / Bina / new — new when a 2025–26 tag (`PriceUpdateTime`,
 * `PromotionUpdateTime`, `Groups`, `LastSaleDateTime`, `ChainID` spelled so) appears, Bina when
 * there is no `XmlDocVersion`, else Cerberus.
 *
 * @example detectDialect("asx:abap", root) // { dialect: "shufersal-sap", kind: "stores" }
 */
export function detectDialect(rootName: string, root: XmlNode, nameType: FileType | null = null, firstRow: { name: string; row: XmlNode } | null = null): Detected {
  const rootLocal = localName(rootName);
  let kind = (firstRow && kindOfRow(firstRow.name, firstRow.row)) || kindOf(root);
  if (!kind && rootLocal === "store") kind = "stores";
  if (!kind && nameType) kind = nameType === "stores" ? "stores" : nameType.startsWith("price") ? "prices" : "promos";
  switch (rootLocal) {
    case "orderxml":
      return { dialect: "superpharm", kind };
    case "abap":
      return { dialect: "shufersal-sap", kind: kind ?? "stores" };
    case "newdataset":
      return { dialect: "tivtaam", kind };
    case "prices":
    case "promos":
    case "store":
      return { dialect: "matrix", kind };
    case "chain":
      return { dialect: "new", kind: kind ?? "stores" };
  }
  const tags = sampleTags(root, firstRow?.row ?? null);
  for (const tag of tags) if (NEW_MARKERS.has(localName(tag)) || tag === "ChainID") return { dialect: "new", kind };
  const hasDocVersion = [...tags].some((t) => localName(t) === "xmldocversion");
  return { dialect: hasDocVersion ? "cerberus" : "bina", kind };
}
