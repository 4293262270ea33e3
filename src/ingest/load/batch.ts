import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

/**
 * Inserts rows through multi-row `INSERT … VALUES (…), (…), …` statements: one call per
 * `batch` rows instead of one per row, which halves the per-row cost of bulk loads in
 * bun:sqlite. Rows are written in the order added; call `flush()` before anything reads them.
 *
 * @example
 * const rows = new BatchInsert(db, "INSERT INTO t (a, b) VALUES", 2, "");
 * rows.add(1, "x"); rows.add(2, "y"); rows.flush();
 */
export class BatchInsert {
  private readonly full: Statement;
  private readonly single: Statement;
  private readonly values: SQLQueryBindings[];
  private used = 0;

  constructor(
    db: Database,
    head: string,
    private readonly columns: number,
    tail = "",
    private readonly batch = 64,
  ) {
    if (columns < 1 || columns > 7) throw new Error("BatchInsert takes 1–7 columns");
    const row = `(${Array(columns).fill("?").join(", ")})`;
    this.full = db.prepare(`${head} ${Array(batch).fill(row).join(", ")} ${tail}`);
    this.single = db.prepare(`${head} ${row} ${tail}`);
    this.values = new Array(columns * batch);
  }

  /** One row (`columns` values; at most 7). Fixed parameters: no array per row. */
  add(a: SQLQueryBindings, b?: SQLQueryBindings, c?: SQLQueryBindings, d?: SQLQueryBindings, e?: SQLQueryBindings, f?: SQLQueryBindings, g?: SQLQueryBindings): void {
    const v = this.values;
    const n = this.columns;
    const at = this.used * n;
    v[at] = a;
    if (n > 1) v[at + 1] = b!;
    if (n > 2) v[at + 2] = c!;
    if (n > 3) v[at + 3] = d!;
    if (n > 4) v[at + 4] = e!;
    if (n > 5) v[at + 5] = f!;
    if (n > 6) v[at + 6] = g!;
    if (++this.used === this.batch) {
      // One array argument binds positionally (cheaper than spreading hundreds of values).
      (this.full.run as (values: SQLQueryBindings[]) => unknown)(v);
      this.used = 0;
    }
  }

  /** Writes the rows still held. */
  flush(): void {
    for (let r = 0; r < this.used; r++) this.single.run(...this.values.slice(r * this.columns, (r + 1) * this.columns));
    this.used = 0;
  }

  /** Forgets the rows still held (their file was rolled back). */
  discard(): void {
    this.used = 0;
  }
}
