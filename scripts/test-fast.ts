/**
 * `npm run test:fast`: the unit-level tests — every folder of test/ whose tests run in this
 * process, with no server process, subprocess, browser, end-to-end run or bench — in about a
 * minute on a 2-core machine. `npm test` runs everything. Extra arguments go to `bun test`.
 */
import { join } from "node:path";

/** The unit-level folders and files. */
const FAST = [
  "test/access",
  "test/alerts",
  "test/app",
  "test/architecture",
  "test/data",
  "test/demo",
  "test/geo",
  "test/http",
  "test/identity",
  "test/ingest",
  "test/modules",
  "test/pricing",
  "test/sandbox",
  "test/search",
  "test/serving",
  "test/config.test.ts",
  "test/docs.test.ts",
  "test/scripts",
  "test/registry.test.ts",
];

/** Tests in those folders that start another process (a server, `gzip`, an import to kill), run end to end, or build the demo data. */
const SLOW = [
  "test/http/observability/live.test.ts",
  "test/http/prebuilt/gzip-answer.test.ts",
  "test/ingest/run/import-archive.test.ts",
  "test/ingest/run/import-kill.test.ts",
  "test/ingest/run/import-priority.test.ts",
  "test/modules/portal/form-origin.test.ts",
  "test/modules/portal/signin-throttle.test.ts",
  // end-to-end by name: webhooks delivered to a receiver over loopback, through the whole app
  "test/alerts/webhooks.e2e.test.ts",
  // integration: each generates and imports demo data (the first start; test mode's sandbox)
  "test/data/data-source.test.ts",
  "test/sandbox/test-mode.test.ts",
];

const root = join(import.meta.dir, "..");
const bun = process.execPath;
const run = Bun.spawn(
  [bun, "test", "--timeout", "60000", "--parallel=2", ...FAST, ...SLOW.map((path) => `--path-ignore-patterns=${path}`), ...process.argv.slice(2)],
  { cwd: root, stdio: ["inherit", "inherit", "inherit"], env: { ...process.env, MEHIR_IMPORT_PRIORITY: "normal", MEHIR_METRICS_ADDR: "127.0.0.1:0" } },
);
process.exit(await run.exited);
