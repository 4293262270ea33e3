import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataState } from "../data/data-state.ts";
import { openDatabase } from "../db/open.ts";
import { PRICE_MIGRATIONS } from "../db/price-schema.ts";
import { syncRegistry } from "../db/sync-registry.ts";
import { ensureDemoData } from "../demo/first-start.ts";
import type { ImportPriority } from "../ingest/run/import-priority.ts";
import type { Registry } from "../registry.ts";
import { ProductSearch } from "../search/index.ts";

/** The sandbox's database, beside `prices.sqlite` in the data dir. */
export const SANDBOX_FILE = "sandbox.sqlite";
/** Where the sandbox's demo files are written before their import (removed after it). */
export const SANDBOX_FILES_DIR = "sandbox-files";
/** The demo seed of every sandbox: integration tests written against one server hold on all. */
export const SANDBOX_SEED = 1;
/** How long a test-key client is asked to wait while the sandbox is made (it takes seconds). */
export const SANDBOX_RETRY_AFTER_S = 15;
/** After a failed build, the next test-key request tries again this much later at the earliest. */
const RETRY_AFTER_FAILURE_MS = 60_000;

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface SandboxOptions {
  /** The sandbox's own prices database (`<dataDir>/sandbox.sqlite`; `:memory:` in tests). */
  db: Database;
  registry: Registry;
  /** The data dir (the demo files are written in it for their import); default a fresh temporary folder. */
  dataDir?: string;
  log?: Log;
  error?: Log;
  importPriority?: ImportPriority;
  /** Demo generation options (tests shrink the demo and import inline). */
  demo?: { scale?: number; importer?: "worker" | "inline"; now?: Date };
}

/**
 * The data `sk_test_` keys read when the live data is not the demo: the embedded demo dataset
 * (seed SANDBOX_SEED) in a database of its own, never mixed with the live one. Made once, on
 * first use or at start, the way the demo's first start is made: files generated, then imported
 * in a worker with its own connection, so live answers never wait for it. Until it is ready,
 * `data.hasData` is false (the access layer answers test keys 503 `data_not_ready`).
 *
 * @example const sandbox = new Sandbox({ db: openDatabase(join(dir, SANDBOX_FILE), PRICE_MIGRATIONS), registry, dataDir: dir }); sandbox.ensure();
 */
export class Sandbox {
  readonly data: DataState;
  private building: Promise<void> | null = null;
  private index: ProductSearch | null = null;
  private failedAt = -Infinity;

  constructor(private readonly options: SandboxOptions) {
    this.data = new DataState(options.db, "sandbox");
  }

  get db(): Database {
    return this.options.db;
  }

  /**
   * The sandbox's product search, following its data (built once the sandbox is made); made on
   * the first call, paced like the app's other background work.
   */
  searchIndex(pace: (workedMs: number) => Promise<void>): ProductSearch {
    return (this.index ??= new ProductSearch({ pace }).follow(this.data, this.db));
  }

  /** The search index, once searchIndex made it. */
  get search(): ProductSearch | null {
    return this.index;
  }

  get ready(): boolean {
    return this.data.hasData;
  }

  /** True while the sandbox is being made. */
  get inProgress(): boolean {
    return this.building !== null;
  }

  /**
   * Starts making the sandbox when it has no data yet (at most one build at a time; after a
   * failure, not again for a minute). Resolves when it is ready or the build failed (logged).
   */
  ensure(): Promise<void> {
    if (this.ready) return Promise.resolve();
    if (this.building) return this.building;
    if (performance.now() - this.failedAt < RETRY_AFTER_FAILURE_MS) return Promise.resolve();
    const { options } = this;
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "mehir-sandbox-"));
    const filesDir = join(dataDir, SANDBOX_FILES_DIR);
    options.log?.("sandbox: making the test-mode data", { seed: SANDBOX_SEED });
    this.building = ensureDemoData({
      db: options.db,
      registry: options.registry,
      dataDir,
      filesDir,
      source: "demo",
      seed: SANDBOX_SEED,
      log: options.log,
      importPriority: options.importPriority,
      ...options.demo,
    })
      .then(() => {
        // The files were only the import's input; the database holds everything served.
        rmSync(options.dataDir ? filesDir : dataDir, { recursive: true, force: true });
        this.data.refresh();
        options.log?.("sandbox: ready", { data_version: this.data.current.version });
      })
      .catch((error) => {
        this.failedAt = performance.now();
        (options.error ?? options.log)?.("sandbox: making the test-mode data failed", { error: String((error as Error)?.stack ?? error) });
      })
      .finally(() => (this.building = null));
    return this.building;
  }
}

/** Opens (creating if needed) the sandbox database of a data dir, its chains synced with the registry. */
export function openSandboxDatabase(path: string, registry: Registry): Database {
  const db = openDatabase(path, PRICE_MIGRATIONS);
  syncRegistry(db, registry);
  return db;
}
