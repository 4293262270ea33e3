/**
 * Worker entrypoint: writes the demo chains it is given, one per message, on a second core.
 * Started by generateDemo (src/demo/generate.ts), which hands each free thread the next chain;
 * the compiled binary lists this file as an extra entrypoint, and without it generateDemo does
 * the whole job on its own thread.
 */
import { buildRegistry } from "../registry.ts";
import { ChainWriter, type ChainResult, type DemoRun } from "./generate-chains.ts";

declare const self: Worker;

export interface GenerateRequest {
  /** The same run in every message to one worker. */
  run: DemoRun;
  /** Raw chain (data/chains.json shape). */
  chain: unknown;
}

export type GenerateReply = { kind: "done"; result: ChainResult } | { kind: "error"; message: string };

// Built on the first chain, then kept: the seed's catalog is the same for every chain of a run.
let writer: ChainWriter | null = null;
const sameRun = (a: DemoRun, b: DemoRun) => a.outDir === b.outDir && a.seed === b.seed && a.now === b.now && a.months === b.months && a.scale === b.scale;

self.onmessage = (event: MessageEvent<GenerateRequest>) => {
  try {
    const [chain] = buildRegistry([event.data.chain], { whole: false }).chains;
    if (!writer || !sameRun(writer.run, event.data.run)) writer = new ChainWriter(event.data.run);
    self.postMessage({ kind: "done", result: writer.write(chain!) } satisfies GenerateReply);
  } catch (error) {
    self.postMessage({ kind: "error", message: (error as Error).message } satisfies GenerateReply);
  }
};
