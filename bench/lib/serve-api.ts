/**
 * Child process of the benches: the real server (`startServer`, as `mehir serve` runs it) on a
 * data dir, on loopback. Writes `{ url, pid }` to --ready-file once listening; stops on SIGTERM.
 *
 *   bun bench/lib/serve-api.ts --data-dir DIR --ready-file FILE
 * Settings come from MEHIR_* variables as for `mehir serve`.
 */
import { loadSettings } from "../../src/config.ts";
import { startServer } from "../../src/server.ts";
import { option } from "./args.ts";

const args = process.argv.slice(2);
const dataDir = option(args, "data-dir");
const readyFile = option(args, "ready-file");
if (!dataDir || !readyFile) throw new Error("serve-api: --data-dir and --ready-file are required");
const settings = loadSettings(process.env, { dataDir, port: 0, host: "127.0.0.1" });
const server = await startServer(settings);
await Bun.write(readyFile, JSON.stringify({ url: server.url, pid: process.pid }));
await server.stopped;
process.exit(0);
