import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readPriceFile, type ReadResult } from "../../../src/ingest/parse/read-file.ts";
import type { PricesFile, PromosFile, StoresFile } from "../../../src/ingest/records.ts";

export const FIXTURES = join(import.meta.dir, "../../fixtures/ingest");

/** Bytes of a fixture under test/fixtures/ingest/. */
export function fixtureBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, path)));
}

/** A fixture read through readPriceFile under its own file name. */
export function readFixture(path: string): ReadResult {
  return readPriceFile(fixtureBytes(path), path.split("/").pop()!);
}

export function pricesOf(path: string): PricesFile {
  const { parsed } = readFixture(path);
  if (parsed.kind !== "prices") throw new Error(`${path} holds ${parsed.kind}`);
  return parsed;
}

export function promosOf(path: string): PromosFile {
  const { parsed } = readFixture(path);
  if (parsed.kind !== "promos") throw new Error(`${path} holds ${parsed.kind}`);
  return parsed;
}

export function storesOf(path: string): StoresFile {
  const { parsed } = readFixture(path);
  if (parsed.kind !== "stores") throw new Error(`${path} holds ${parsed.kind}`);
  return parsed;
}
