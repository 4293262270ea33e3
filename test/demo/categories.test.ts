import { expect, test } from "bun:test";
import { buildCatalog } from "../../src/demo/catalog.ts";
import { Random } from "../../src/demo/random.ts";
import { loadSeed } from "../../src/demo/seed.ts";
import { classify } from "../../src/search/categories.ts";

// The files carry no category: the service classifies product names. The demo's names must
// read so that the classifier files them where a shopper would look for them.
const EXPECTED: Record<string, string[]> = {
  dairy: ["dairy"],
  bakery: ["bakery"],
  meat: ["meat", "frozen"],
  fish: ["fish", "frozen"],
  frozen: ["frozen"],
  snacks: ["snacks"],
  sweets: ["sweets"],
  beverages: ["drinks"],
  alcohol: ["alcohol"],
  "coffee-tea": ["coffee-tea"],
  breakfast: ["dry-goods", "spices-sauces", "sweets"],
  deli: ["spices-sauces", "produce", "canned", "fish", "dairy", "meat"],
  pantry: ["dry-goods", "spices-sauces", "canned"],
  canned: ["canned", "dry-goods"],
  cleaning: ["cleaning", "household"],
  paper: ["paper", "household"],
  baby: ["baby"],
  "personal-care": ["personal-care"],
  health: ["pharmacy"],
  pets: ["pet"],
};

test("the classifier files at least 80% of demo products in their seed category", () => {
  const { products } = buildCatalog(loadSeed().products, new Random("categories").fork("catalog"));
  let agree = 0;
  for (const p of products) if (EXPECTED[p.category]!.includes(classify(p.name, p.manufacturer))) agree++;
  expect(agree / products.length).toBeGreaterThan(0.8);
});

test("produce and counter items classify as produce, meat, fish or dairy", () => {
  const produce = loadSeed().products.produce;
  let agree = 0;
  for (const p of produce) if (["produce", "meat", "fish", "dairy"].includes(classify(p.n))) agree++;
  expect(agree / produce.length).toBeGreaterThan(0.85);
});
