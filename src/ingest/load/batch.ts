import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

/**
 * Inserts rows through multi-row `INSERT … VALUES (…), (…), …` statements: one call per
 * `batch` rows instead of one per row, which halves the per-row cost of bulk loads in
 * bun:sqlite. Rows are written in the order added; call `flush()` before anything reads them.
 * The rows left at a flush go in statements of 32, 16, 8, … rows (the binary digits of their
 * count), not one by one: a file's last few dozen rows cost a handful of calls.
 *
 * @example
 * const rows = new BatchInsert(db, "INSERT INTO t (a, b) VALUES", 2, "");
 * rows.add(1, "x"); rows.add(2, "y"); rows.flush();
 */
export class BatchInsert {
  private readonly full: Statement;
  /** Statements of 2^k rows for the rows left at a flush, prepared when first needed. */
  private readonly partial: Statement[] = [];
  private readonly values: SQLQueryBindings[];
  private used = 0;

  constructor(
    private readonly db: Database,
    private readonly head: string,
    private readonly columns: number,
    private readonly tail = "",
    private readonly batch = 64,
  ) {
    if (columns < 1 || columns > 7) throw new Error("BatchInsert takes 1–7 columns");
    this.full = db.prepare(this.sql(batch));
    this.values = new Array(columns * batch);
  }

  private sql(rows: number): string {
    const row = `(${Array(this.columns).fill("?").join(", ")})`;
    return `${this.head} ${Array(rows).fill(row).join(", ")} ${this.tail}`;
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
    let at = 0;
    for (let k = 31 - Math.clz32(this.used); k >= 0; k--) {
      const rows = 1 << k;
      if ((this.used & rows) === 0) continue;
      const statement = (this.partial[k] ??= this.db.prepare(this.sql(rows)));
      (statement.run as (values: SQLQueryBindings[]) => unknown)(this.values.slice(at * this.columns, (at + rows) * this.columns));
      at += rows;
    }
    this.used = 0;
  }

  /** Forgets the rows still held (their file was rolled back). */
  discard(): void {
    this.used = 0;
  }
}
