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
    const row = `(${Array(columns).fill("?").join(", ")})`;
    this.full = db.prepare(`${head} ${Array(batch).fill(row).join(", ")} ${tail}`);
    this.single = db.prepare(`${head} ${row} ${tail}`);
    this.values = new Array(columns * batch);
  }

  add(...row: SQLQueryBindings[]): void {
    const at = this.used * this.columns;
    for (let i = 0; i < this.columns; i++) this.values[at + i] = row[i]!;
    if (++this.used === this.batch) {
      this.full.run(...this.values);
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
