import { normaliseCode, type Chain, type Registry } from "../../registry.ts";
import { detach } from "./detach.ts";

/** The chain a file belongs to, and the code its stores and promotions are keyed under. */
export interface FileChain {
  chain: Chain;
  /** Canonical chain code (see storeChainCode). */
  code: string;
}

export type ChainResolution = { ok: true; value: FileChain } | { ok: false; reason: string };

/**
 * The code a chain's stores and promotions are keyed under. Published codes are kept, except
 * odd ones (not 13 digits: Stop Market's truncated `72906390`, Dor Alon's 12-digit typo), which
 * stand for the chain's first registry code — so a Stores file and a price file of the same
 * store meet on one row.
 * @example storeChainCode(stopMarket, "0000072906390") // "7290639000004"
 */
export function storeChainCode(chain: Chain, code: string): string {
  const normal = normaliseCode(code);
  return normal.length === 13 ? normal : normaliseCode(chain.chain_codes[0]!);
}

/**
 * Decides a file's chain from its name and its header. Unknown codes are rejected, not
 * guessed; a header naming another chain than the file name is rejected too.
 * @example resolveFileChain(registry, "7290058140886", "7290058140886") // { ok: true, value: { chain: rami-levy, code: "7290058140886" } }
 * @example resolveFileChain(registry, "7290000000999", null)          // { ok: false, reason: "unknown chain 7290000000999" }
 */
export function resolveFileChain(registry: Registry, nameCode: string | null, headerCode: string | null): ChainResolution {
  const fromName = nameCode ? normaliseCode(nameCode) : null;
  const fromHeader = headerCode && /^\d+$/.test(headerCode.trim()) ? detach(normaliseCode(headerCode.trim())) : null;
  if (!fromName && !fromHeader) return { ok: false, reason: "no chain code in the file name or content" };
  const nameChain = fromName ? registry.byCode.get(fromName) : undefined;
  const headerChain = fromHeader ? registry.byCode.get(fromHeader) : undefined;
  if (fromName && !nameChain) return { ok: false, reason: `unknown chain ${fromName}` };
  if (fromHeader && !headerChain) {
    return nameChain
      ? { ok: false, reason: `header chain ${fromHeader} differs from the file name's chain ${fromName} (${nameChain.slug})` }
      : { ok: false, reason: `unknown chain ${fromHeader}` };
  }
  if (nameChain && headerChain && nameChain !== headerChain) {
    return { ok: false, reason: `header chain ${fromHeader} (${headerChain.slug}) differs from the file name's chain ${fromName} (${nameChain.slug})` };
  }
  const chain = (headerChain ?? nameChain)!;
  // The header's code when it is a full one (a Victory file may carry its second code), else the name's.
  const code = fromHeader && fromHeader.length === 13 ? fromHeader : (fromName ?? fromHeader)!;
  return { ok: true, value: { chain, code: storeChainCode(chain, code) } };
}
