import { describe, expect, test } from "bun:test";
import { parseStores } from "../../src/ingest/dialects/stores.ts";
import { scanXml } from "../../src/ingest/files/xml-scan.ts";
import { resolveCity } from "../../src/geo/geo.ts";
import { VICTORY, at, store, storesInput } from "../helpers/price-records.ts";
import { freshDb, runInputs } from "../helpers/ingest/session-helpers.ts";

/** A Matrix/Laib-shaped Stores file (as Victory publishes), with the coordinates each branch gives. */
function matrixStores(branches: { id: string; lat: string; lon: string }[]): string {
  const rows = branches
    .map(
      (b) =>
        `<Branch><ChainID>7290696200003</ChainID><SubChainID>001</SubChainID><StoreID>${b.id}</StoreID><StoreType>1</StoreType>` +
        `<StoreName>סניף ${b.id}</StoreName><Address>הרצל 1</Address><City>חיפה</City><ZIPCode /><Latitude>${b.lat}</Latitude><Longitude>${b.lon}</Longitude></Branch>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="utf-8"?><Store Date="22/11/26" Time="05:00:00"><Branches>${rows}</Branches></Store>`;
}

describe("store coordinates in Stores files", () => {
  test("decimal degrees inside Israel are kept; empty, zero, junk and far-away values are not; a swapped pair is put right", () => {
    const xml = matrixStores([
      { id: "1", lat: "32.7940", lon: "34.9896" },
      { id: "2", lat: "", lon: "" },
      { id: "3", lat: "0", lon: "0" },
      { id: "4", lat: "abc", lon: "34.9" },
      { id: "5", lat: "51.5072", lon: "-0.1276" },
      { id: "6", lat: "34.9896", lon: "32.7940" },
      { id: "7", lat: "32.7940", lon: "" },
    ]);
    const { stores } = parseStores(scanXml(xml).root).file;
    expect(stores.map((s) => [s.storeCode, s.latitude, s.longitude])).toEqual([
      ["1", 32.794, 34.9896],
      ["2", undefined, undefined],
      ["3", undefined, undefined],
      ["4", undefined, undefined],
      ["5", undefined, undefined],
      ["6", 32.794, 34.9896],
      ["7", undefined, undefined],
    ]);
  });

  test("stored by the import; a later Stores file without coordinates keeps them, one with new ones replaces them", () => {
    const db = freshDb();
    runInputs(db, [storesInput(VICTORY, at(20), [store(VICTORY, "1", { latitude: 32.1, longitude: 34.9 }), store(VICTORY, "2")])], { resolveCity });
    const read = () => db.query("SELECT store_code, latitude, longitude FROM stores ORDER BY store_code").all();
    expect(read()).toEqual([
      { store_code: "1", latitude: 32.1, longitude: 34.9 },
      { store_code: "2", latitude: null, longitude: null },
    ]);
    runInputs(db, [storesInput(VICTORY, at(21), [store(VICTORY, "1"), store(VICTORY, "2", { latitude: 31.25, longitude: 34.79 })])], { resolveCity });
    expect(read()).toEqual([
      { store_code: "1", latitude: 32.1, longitude: 34.9 },
      { store_code: "2", latitude: 31.25, longitude: 34.79 },
    ]);
  });
});
