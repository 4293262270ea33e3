import type { AliasTable } from "./fields.ts";

/** Document header of price and promotion files (siblings of the row list). */
export const HEADER_FIELDS = {
  chainCode: ["ChainId", "ChainID", "CHAINID"],
  chainName: ["ChainName", "CHAINNAME"],
  subChainCode: ["SubChainId", "SubChainID", "SUBCHAINID"],
  storeCode: ["StoreId", "StoreID", "STOREID"],
} as const satisfies AliasTable<string>;

export type HeaderField = keyof typeof HEADER_FIELDS;

/**
 * The first alias found in a lower-cased context map.
 * @example fromContext({ chainid: "7290027600007" }, HEADER_FIELDS.chainCode) // "7290027600007"
 */
export function fromContext(context: Readonly<Record<string, string>>, aliases: readonly string[]): string | undefined {
  for (const alias of aliases) {
    const v = context[alias.toLowerCase()];
    if (v !== undefined) return v;
  }
  return undefined;
}
