import { afterAll, afterEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logsOf, ServeProcess, withLogs } from "../helpers/serve-process.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

// `npm start` as a user runs it: `mehir serve` on an empty data dir must generate and import the
// embedded demo on its own, answer while doing so, then serve it; a second start reuses the data.
const MAIN = join(import.meta.dir, "../../src/main.ts");
const dataDir = mkdtempSync(join(tmpdir(), "mehir-first-start-"));
let child: ServeProcess | null = null;
const started: ServeProcess[] = [];
afterEach(async () => {
  await child?.stop("SIGKILL");
  child = null;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const cli = (...args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args, "--data-dir", dataDir], { env: { ...process.env, NODE_ENV: "production" } });

/** Starts `mehir serve` on a free port (its log kept for a failure); resolves with its URL from the "listening" log line. */
async function serve(): Promise<string> {
  child = await ServeProcess.start({ dataDir, env: { NODE_ENV: "production" }, name: `start ${started.length + 1}` });
  started.push(child);
  return child.url;
}

/** The readiness probe's answer once it is 200 (the test's timeout bounds the wait: minutes on a loaded machine). */
const waitReady = async () => ({ body: await child!.ready() });
const logs = logsOf(started);

async function stop() {
  expect(await child!.stop("SIGTERM")).toBe(0);
  child = null;
}

describe("mehir serve on an empty data dir", () => {
  test("answers at once, imports the demo, then serves it", withLogs(logs, async () => {
    // Before the first start: the account is made in a data dir no server has started yet (--create).
    expect(cli("accounts", "create", "--email", "e2e@example.com", "--plan", "pro", "--create").exitCode).toBe(0);
    const key = cli("keys", "create", "--email", "e2e@example.com", "--kind", "test").stdout.toString().trim().split("\n").at(-1)!;
    const url = await serve();

    const early = await fetch(`${url}/api/v1/prices/?barcode=7290000000001`, { headers: { "x-api-key": key } });
    expect(early.status).toBe(503);
    expect((await early.json()).code).toBe("data_not_ready");

    const { body } = await waitReady();
    expect(body).toMatchObject({ ready: true, data: true, search: true, source: "demo" });

    const chains = await (await fetch(`${url}/api/v1/chains/`, { headers: { "x-api-key": key } })).json();
    const withData = chains.data.filter((c: any) => c.status === "ok");
    expect(withData.length).toBeGreaterThanOrEqual(28);
    expect(chains.meta.source).toBe("demo");

    const search = await (await fetch(`${url}/api/v1/product-search/?q=${encodeURIComponent("חלב")}`, { headers: { "x-api-key": key } })).json();
    expect(search.data.length).toBeGreaterThan(0);
    const prices = await fetch(`${url}/api/v1/prices/?barcode=${search.data[0].barcode}`, { headers: { "x-api-key": key } });
    expect(prices.status).toBe(200);
    expect((await prices.json()).data.prices.length).toBeGreaterThan(1);
    await stop();
  }), 300_000);

  test("a later start reuses the data: same data version, nothing regenerated", withLogs(logs, async () => {
    await serve();
    // Start-up time is measured in bench/demo.ts; here only that nothing is generated again.
    const { body } = await waitReady();
    expect(body.data_version).toBe(1);
    await stop();
  }), 180_000);
});
