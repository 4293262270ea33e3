import { parseOne } from "./parse-file.ts";
import { ParsePool } from "./parse-pool.ts";
import { ProductMemo } from "../dialects/product-facts.ts";
import { SpentBytes } from "../files/release.ts";
import { log } from "../../lib/log.ts";
import { unpackParsed } from "./packed.ts";
import type { ParseReply } from "./parse-messages.ts";
import type { OrderedFile } from "../run/order.ts";

/** Below this many files a parse worker's start-up is not worth it. */
const POOL_MIN_FILES = 16;
/** How many files past the workers' queue the importing thread may parse itself. */
const STEAL_AHEAD = 4;
/**
 * Without stealing, the workers are also asked for further files while those asked ahead of the
 * loader are at most this many bytes (as stored) and AHEAD_FILES files: a file that takes the
 * loader long (the first of a chain: all of its products new) must not leave them idle.
 */
const AHEAD_BYTES = 16 * 2 ** 20;
const AHEAD_FILES = 64;

/**
 * Whether the importing thread parses files itself while it waits for the workers: only with a
 * core to spare beyond the workers and itself. A file parsed on the importing thread costs more
 * than the same file on a worker — that thread's engine compiles the parser again (JIT) and its
 * own product memo reads every product again — so where no core is free for that (one worker on
 * two cores: +0.7 CPU s of a 4–5 s real-format import, +3.7 s of the demo's 26–29 s) it only
 * lengthens the run.
 * @example stealsWhenWaiting(2, 1) // false: the worker and the importing thread have a core each
 */
export function stealsWhenWaiting(cores: number, workers: number): boolean {
  return cores > workers + 1;
}

/**
 * How many files from the `i`th on the workers are asked for: `queue`, and — when the importing
 * thread does not parse files itself — further ones while they come to at most AHEAD_BYTES.
 * @example filesAhead(files, 0, 7, false) // 64 when the next 64 files are small
 */
export function filesAhead(files: readonly { size: number }[], i: number, queue: number, steals: boolean): number {
  if (steals) return queue;
  let bytes = 0;
  let n = 0;
  while (i + n < files.length && n < AHEAD_FILES && (n < queue || bytes + files[i + n]!.size <= AHEAD_BYTES)) bytes += files[i + n++]!.size;
  return Math.max(n, queue);
}

/**
 * Reads and parses the files of a run ahead of the loader, in the order they are loaded.
 * With parse workers (default: cores − 1, at most 3) each worker keeps a short queue — longer,
 * up to AHEAD_BYTES of files, when the importing thread does not parse itself; when the
 * importing thread would wait for the next file, it first does the caller's idle work (if any),
 * then — when a core is free for it ({@link stealsWhenWaiting}) — parses a file past the workers'
 * queue itself. Without workers, files are parsed when taken.
 *
 * @example
 * const ahead = new Prefetcher(ordered, { maxBytes });
 * for (let i = 0; i < ordered.length; i++) load(await ahead.take(i));
 * ahead.close();
 */
export class Prefetcher {
  private readonly pool: ParsePool | null = null;
  private readonly queue: number;
  /** The importing thread parses further files itself while it waits (see stealsWhenWaiting). */
  private readonly steals: boolean;
  private readonly replies: (Promise<ParseReply> | ParseReply | undefined)[] = [];
  private next = 0;
  /** Products this thread has read during the run, and its last inflated file (for the files it parses itself). */
  private readonly pack = { memo: new ProductMemo(), spent: new SpentBytes() };

  constructor(
    private readonly files: OrderedFile[],
    private readonly options: { workers?: number; maxBytes: number; cores?: number },
  ) {
    const cores = options.cores ?? (navigator.hardwareConcurrency || 2);
    const size = options.workers ?? Math.max(1, Math.min(3, cores - 1));
    const wanted = size > 0 && (options.workers !== undefined || files.length >= POOL_MIN_FILES);
    if (wanted) {
      try {
        this.pool = new ParsePool(size, options.maxBytes);
      } catch (error) {
        log.warn("import: parse workers unavailable, files are parsed on the importing thread", { error: (error as Error).message });
        this.pool = null;
      }
    }
    this.steals = stealsWhenWaiting(cores, size);
    // Without stealing, the workers are asked as far ahead as stealing would have parsed: the
    // importing thread's idle work (a history write) must not leave them without files.
    this.queue = this.pool ? size * 2 + 1 + (this.steals ? 0 : STEAL_AHEAD) : 0;
  }

  private tooLarge(i: number): ParseReply | null {
    const file = this.files[i]!;
    if (file.size <= this.options.maxBytes) return null;
    return { id: i, ok: false, bytes: file.size, reason: `file is ${file.size} bytes, over the ${this.options.maxBytes}-byte limit`, readMs: 0, parseMs: 0 };
  }

  private async inline(i: number): Promise<ParseReply> {
    const file = this.files[i]!;
    // Packed like a worker's reply, so the loader reads every file the same (cheapest) way:
    // identities and description hashes computed once, no product object per row.
    const reply = await parseOne({ id: i, path: file.path, fileName: file.fileName, maxBytes: this.options.maxBytes }, this.pack);
    if (reply.ok && reply.parsed.kind === "prices-packed") reply.parsed = unpackParsed(reply.parsed);
    return reply;
  }

  /**
   * The reply for file `i` (files are taken in order). While it is not ready, `idle()` is
   * called as long as it returns true, then further files are parsed on this thread.
   */
  async take(i: number, idle: () => boolean = () => false): Promise<ParseReply> {
    if (this.next <= i) this.next = i;
    if (this.pool) {
      const end = Math.min(this.files.length, i + filesAhead(this.files, i, this.queue, this.steals));
      while (this.next < end) {
        const j = this.next++;
        this.replies[j] = this.tooLarge(j) ?? this.pool.parse(this.files[j]!.path, this.files[j]!.fileName);
      }
      for (;;) {
        const pending = this.replies[i];
        if (!(pending instanceof Promise) || Bun.peek.status(pending) !== "pending") break;
        if (idle()) continue;
        if (!this.steals || this.next >= this.files.length || this.next >= i + this.queue + STEAL_AHEAD) break;
        const j = this.next++;
        this.replies[j] = this.tooLarge(j) ?? (await this.inline(j));
      }
    }
    const reply = this.replies[i] ?? this.tooLarge(i) ?? this.inline(i);
    this.replies[i] = undefined;
    if (this.next <= i) this.next = i + 1;
    return reply;
  }

  close(): void {
    this.pool?.close();
    this.pack.spent.free();
  }
}
