import { parseOne } from "./parse-file.ts";
import type { ParseReply, ParseRequest } from "./parse-messages.ts";
import { unpackParsed } from "./packed.ts";
import { log } from "../../lib/log.ts";
import { workerSpecifier } from "../../workers.ts";

interface Slot {
  worker: Worker;
  pending: number;
  dead: boolean;
}

/**
 * Parses files on `size` worker threads (src/ingest/parse/parse-worker.ts): while the importing
 * thread loads one file into SQLite, the next ones are being read and parsed. Each request
 * goes to the worker with the fewest outstanding ones. Replies are unpacked here.
 *
 * @example
 * const pool = new ParsePool(1, 256 * 2 ** 20);
 * const reply = await pool.parse(path, "PriceFull7290058140886-001-202611220300.gz");
 * pool.close();
 */
export class ParsePool {
  private readonly workers: Slot[] = [];
  private readonly waiting = new Map<number, { resolve: (r: ParseReply | Promise<ParseReply>) => void; slot: Slot; request: ParseRequest }>();
  private next = 0;

  constructor(
    size: number,
    private readonly maxBytes: number,
  ) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(workerSpecifier("ingest/parse/parse-worker.ts"));
      const slot: Slot = { worker, pending: 0, dead: false };
      worker.onmessage = (event: MessageEvent<ParseReply>) => {
        const reply = event.data;
        const waiter = this.waiting.get(reply.id);
        if (!waiter) return;
        this.waiting.delete(reply.id);
        waiter.slot.pending--;
        if (reply.ok && reply.parsed.kind === "prices-packed") reply.parsed = unpackParsed(reply.parsed);
        waiter.resolve(reply);
      };
      worker.onerror = (event) => {
        // A worker that fails (e.g. missing from a build) gets no more work; what it held is
        // parsed here instead, so the import goes on.
        if (!slot.dead) log.warn("import: parse worker failed, its files are parsed on the importing thread", { error: event.message });
        slot.dead = true;
        event.preventDefault?.();
        for (const [id, waiter] of this.waiting) {
          if (waiter.slot !== slot) continue;
          this.waiting.delete(id);
          waiter.resolve(parseOne(waiter.request, false));
        }
        slot.pending = 0;
      };
      this.workers.push(slot);
    }
  }

  parse(path: string, fileName: string): Promise<ParseReply> {
    const id = this.next++;
    const alive = this.workers.filter((w) => !w.dead);
    if (alive.length === 0) return parseOne({ id, path, fileName, maxBytes: this.maxBytes }, false);
    const slot = alive.reduce((a, b) => (b.pending < a.pending ? b : a));
    slot.pending++;
    const request: ParseRequest = { id, path, fileName, maxBytes: this.maxBytes };
    return new Promise<ParseReply>((resolve) => {
      this.waiting.set(id, { resolve, slot, request });
      slot.worker.postMessage(request);
    });
  }

  close(): void {
    for (const { worker } of this.workers) worker.terminate();
  }
}
