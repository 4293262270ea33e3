/**
 * Child process of kill.test.ts: the service as `mehir serve` runs it (createApp on the data
 * dir, listening on loopback, following data versions), which after --import-after ms imports
 * the given files in a worker thread on its own connection (runImportInWorker) — as the live
 * mode's daily fetch in `serve` does. (The separate `mehir import` process beside `mehir serve`
 * is tested with the real commands in processes.test.ts.)
 * Prints JSON lines: { event: "ready", url }, { event: "import-start" }, { event: "import-done", status }.
 *
 *   bun test/helpers/faults/serve-and-import.ts --data-dir DIR [--import-after MS] [PATH...]
 */
import { join } from "node:path";
import { createApp } from "../../../src/app.ts";
import { createServices, type Services } from "../../../src/services.ts";
import { loadSettings } from "../../../src/config.ts";
import { openDataDir, PRICES_FILE } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { DataState } from "../../../src/data/data-state.ts";
import { runImportInWorker } from "../../../src/ingest/run/run-in-worker.ts";
import { loadRegistry } from "../../../src/registry.ts";

const args = process.argv.slice(2);
const valueOf = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const dataDir = valueOf("--data-dir")!;
const importAfter = valueOf("--import-after");
const paths = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));

const settings = loadSettings(process.env, { dataDir, port: 0, host: "127.0.0.1" });
const db = openDataDir(dataDir);
const registry = loadRegistry();
syncRegistry(db.prices, registry);
const data = new DataState(db.prices);
const deps = createServices(settings, db, { registry, data, now: () => new Date() });
const app = createApp(deps);
app.listen({ port: 0, hostname: "127.0.0.1" });
setInterval(() => data.refresh(), 100);
const say = (line: object) => process.stdout.write(JSON.stringify(line) + "\n");
say({ event: "ready", url: `http://127.0.0.1:${app.server!.port}` });

if (importAfter !== undefined && paths.length > 0) {
  await Bun.sleep(Number(importAfter));
  say({ event: "import-start" });
  const report = await runImportInWorker({ dbPath: join(dataDir, PRICES_FILE), paths, origin: "fetch", source: "live", priority: "normal" });
  say({ event: "import-done", status: report.status });
}
process.on("SIGTERM", async () => {
  await app.stop();
  process.exit(0);
});
