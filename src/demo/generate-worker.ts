/**
 * Worker entrypoint: writes a share of the demo's chains on a second core. Started by
 * generateDemo (src/demo/generate.ts); the compiled binary lists this file as an extra
 * entrypoint, and without it generateDemo does the whole job on its own thread.
 */
import { buildRegistry } from "../registry.ts";
import { generateChains, type ChainResult, type DemoRun } from "./generate-chains.ts";

declare const self: Worker;

export interface GenerateRequest {
  run: DemoRun;
  /** Raw chain list (data/chains.json shape). */
  chains: unknown;
}

export type GenerateReply = { kind: "done"; results: ChainResult[] } | { kind: "error"; message: string };

self.onmessage = async (event: MessageEvent<GenerateRequest>) => {
  try {
    const registry = buildRegistry(event.data.chains);
    const results = await generateChains(registry.chains, event.data.run);
    self.postMessage({ kind: "done", results } satisfies GenerateReply);
  } catch (error) {
    self.postMessage({ kind: "error", message: (error as Error).message } satisfies GenerateReply);
  }
};
