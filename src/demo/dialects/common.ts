import type { Item } from "../assortment.ts";
import type { Profile } from "../profiles.ts";

const HEBREW_COUNTRY: Record<string, string> = {
  IL: "ישראל", DE: "גרמניה", IT: "איטליה", FR: "צרפת", NL: "הולנד", BE: "בלגיה", GB: "בריטניה", US: "ארה\"ב",
  AT: "אוסטריה", GR: "יוון", DK: "דנמרק", MX: "מקסיקו", SE: "שוודיה", IE: "אירלנד", CH: "שוויץ", ES: "ספרד",
  CZ: "צ'כיה", PL: "פולין", CN: "סין", HU: "הונגריה",
};

/** ManufactureCountry as the chain writes it: "IL", "ישראל", "לא ידוע" or King Store's "IL2". */
export function countryText(item: Item, profile: Profile): string {
  switch (profile.countryStyle) {
    case "iso":
      return item.country;
    case "unknown":
      return "לא ידוע";
    case "il2":
      return item.country === "IL" ? "IL2" : item.country;
    default:
      return HEBREW_COUNTRY[item.country] ?? item.country;
  }
}

/** The item name as published; some chains cut names to 20 characters. */
export function itemName(item: Item, profile: Profile): string {
  return profile.truncateNames ? item.name.slice(0, profile.truncateNames).trimEnd() : item.name;
}

/** A stable internal item id (Cofix and Fresh Market print one beside the barcode). */
export function internalId(item: Item): string {
  let h = 0;
  for (const ch of item.code) h = (h * 31 + ch.charCodeAt(0)) % 900000;
  return String(100000 + h);
}
