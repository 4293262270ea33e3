/**
 * Both clients against a real `mehir serve` on the demo data (one server, on a free loopback
 * port): the TypeScript client's operations, an error, pages, a signed test event delivered to a
 * receiver on loopback; its retry rule against a small fake server; and the Python client's own
 * tests (clients/python/tests, `python3 -m unittest`) against the same server — skipped, saying
 * why, when python3 (3.9 or later) is absent.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createClient, MehirError, parseWebhookEvent, verifyWebhookSignature, WebhookSignatureError, type ErrorCode, type MehirClient } from "../../clients/typescript/src/index.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { openDataDir } from "../../src/db/open.ts";
import { demoDataDir } from "../helpers/demo-data-dir.ts";
import { ServeProcess, withLogs } from "../helpers/serve-process.ts";

// A server process on the demo data and a Python child: sized for a loaded 2-core machine.
setDefaultTimeout(120_000);

const NOW = new Date("2026-11-22T08:00:00Z");
const ROOT = join(import.meta.dir, "../..");
const BARCODE = "7291252436027"; // חלב תנובה 3% 1 ליטר

let dataDir: string;
let server: ServeProcess;
let proKey: string;
let mehir: MehirClient;
const logs = () => server?.logs() ?? "";

beforeAll(
  withLogs(logs, async () => {
    dataDir = await demoDataDir(NOW);
    const db = openDataDir(dataDir);
    const account = createAccount(db.accounts, { email: "clients-test@example.com", plan: "pro" }, new Date());
    // A live key: price alerts need one (test mode has none).
    proKey = createKey(db.accounts, { accountId: account.id, kind: "live", origins: [] }, new Date()).key;
    db.prices.close();
    db.accounts.close();
    server = await ServeProcess.start({
      dataDir,
      // Loopback webhooks for the test events; limits no test reaches; no daily export to write.
      env: { MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_RATE_PRO: "100000", MEHIR_QUOTA_PRO: "1000000", MEHIR_EXPORTS: "off" },
    });
    await server.ready();
    mehir = createClient({ baseUrl: server.url, apiKey: proKey });
  }),
  300_000,
);

afterAll(async () => {
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe("the TypeScript client against mehir serve", () => {
  test(
    "getPrices answers the envelope",
    withLogs(logs, async () => {
      const { data, meta } = await mehir.getPrices({ barcode: BARCODE });
      expect(data.barcode).toBe(BARCODE);
      expect(data.prices.length).toBeGreaterThan(0);
      expect(meta.request_id).toStartWith("req_");
      const byStore = await mehir.getPrices({ barcode: BARCODE, granularity: "store", city: "חיפה" });
      expect(byStore.data.prices.every((p) => p.granularity === "store")).toBe(true);
    }),
  );

  test(
    "…All iterates over every page",
    withLogs(logs, async () => {
      const first = await mehir.searchProducts({ q: "חלב תנובה", limit: 3 });
      const total = first.meta.total;
      expect(total).toBeGreaterThan(3);
      const items = [];
      for await (const item of mehir.searchProductsAll({ q: "חלב תנובה", limit: 3 })) items.push(item);
      expect(items.length).toBe(total);
      expect(items.slice(0, 3)).toEqual(first.data);
      expect(new Set(items.map((i) => `${i.barcode}/${i.chain_id}`)).size).toBe(total);
    }),
  );

  test(
    "a body operation, a list, the probes, an image and MCP",
    withLogs(logs, async () => {
      const basket = await mehir.compareBasket({ items: [{ barcode: BARCODE, quantity: 2 }] });
      expect(basket.data.stores.length).toBeGreaterThan(0);
      expect(basket.data.cheapest_store).not.toBeNull();
      const chains = await mehir.listChains();
      expect(chains.meta.count).toBe(chains.data.length);
      expect(await mehir.getLiveness()).toEqual({ status: "ok" });
      const image = await mehir.getProductImage({ file: `${BARCODE}.svg` });
      expect(image).toBeInstanceOf(Blob);
      expect(await (image as Blob).text()).toContain("<svg");
      const answer = (await mehir.postMcpMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" })) as { result: { tools: { name: string }[] } };
      expect(answer.result.tools.map((t) => t.name)).toContain("search_products");
    }),
  );

  test(
    "errors throw MehirError with the problem's status, code, param and request_id",
    withLogs(logs, async () => {
      const notFound = await mehir.getPrices({ barcode: "7290000000000" }).catch((e: unknown) => e);
      expect(notFound).toBeInstanceOf(MehirError);
      expect(notFound).toMatchObject({ status: 404, code: "product_not_found", param: null });
      expect((notFound as MehirError).request_id).toStartWith("req_");
      const invalid = await mehir.searchProducts({ q: "חלב", limit: 1000 }).catch((e: unknown) => e);
      expect(invalid).toMatchObject({ status: 400, code: "invalid_parameter", param: "limit" });
      const unknownKey = await createClient({ baseUrl: server.url, apiKey: `sk_test_${"0".repeat(32)}` })
        .listChains()
        .catch((e: unknown) => e);
      expect(unknownKey).toMatchObject({ status: 401 });
      await expect(mehir.getAlert({ id: "" })).rejects.toThrow(TypeError);
    }),
  );

  test(
    "a test event reaches a receiver on loopback, signed: verifyWebhookSignature accepts it, and refuses it altered",
    withLogs(logs, async () => {
      const received = Promise.withResolvers<{ headers: Headers; body: string; path: string }>();
      const receiver = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        async fetch(request) {
          received.resolve({ headers: request.headers, body: await request.text(), path: new URL(request.url).pathname });
          return new Response(null, { status: 204 });
        },
      });
      try {
        const { data: alert } = await mehir.createAlert({ url: `http://127.0.0.1:${receiver.port}/hook`, barcode: BARCODE, condition: { below_ils: "0.10" } });
        const delivery = await mehir.sendAlertTestEvent({ id: alert.id });
        expect(delivery.data.status).toBe("succeeded");
        const { headers, body, path } = await received.promise;
        expect(path).toBe("/hook");
        const signature = headers.get("mehir-signature");
        expect(await verifyWebhookSignature(signature, body, alert.secret)).toBe(true);
        expect(await verifyWebhookSignature(signature, new TextEncoder().encode(body), alert.secret)).toBe(true);
        const event = await parseWebhookEvent(signature, body, alert.secret);
        expect(event.id).toBe(headers.get("mehir-event-id")!);
        expect(event.data.test).toBe(true);
        expect(await verifyWebhookSignature(signature, `${body} `, alert.secret)).toBe(false);
        await expect(parseWebhookEvent(signature, body, "whsec_other")).rejects.toBeInstanceOf(WebhookSignatureError);
        const listed = [];
        for await (const a of mehir.listAlertsAll({ limit: 1 })) listed.push(a.id);
        expect(listed).toContain(alert.id);
        expect((await mehir.deleteAlert({ id: alert.id })).data).toEqual({ id: alert.id, deleted: true });
      } finally {
        await receiver.stop(true);
      }
    }),
  );
});

describe("the TypeScript client's retries (a fake server on loopback)", () => {
  const OK = () => Response.json({ data: [], meta: { request_id: "req_ok", livemode: true } });
  const problem = (status: number, code: string, retryAfter: string | null) =>
    Response.json({ type: `/docs/errors#${code}`, title: code, status, detail: "try later", code, request_id: "req_fake" }, { status, headers: { "content-type": "application/problem+json", ...(retryAfter === null ? {} : { "retry-after": retryAfter }) } });

  /** A server answering each request with `answer(n)` (n counts from 1), and the requests it got. */
  function fake(answer: (n: number, request: Request) => Response) {
    const requests: { url: string; headers: Headers }[] = [];
    const fakeServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => answer(requests.push({ url: request.url, headers: new Headers(request.headers) }), request) });
    return { url: fakeServer.url.origin, requests, stop: () => fakeServer.stop(true) };
  }

  test("a 429 is tried again after its Retry-After", async () => {
    // Like the real server, the fake refuses a retry that comes before the Retry-After it asked for.
    let firstAt = 0;
    const f = fake((n) => {
      if (n === 1) {
        firstAt = performance.now();
        return problem(429, "rate_limited", "1");
      }
      return performance.now() - firstAt >= 1000 ? OK() : problem(400, "too_early", null);
    });
    try {
      const answer = await createClient({ baseUrl: f.url, apiKey: "sk_test_x" }).listChains();
      expect(answer.meta.request_id).toBe("req_ok");
      expect(f.requests.length).toBe(2);
      expect(f.requests[1]!.headers.get("x-api-key")).toBe("sk_test_x");
    } finally {
      await f.stop();
    }
  });

  test("at most 3 tries; a wait past the 30 s budget fails at once; no Retry-After or another status: no retry; retry: false", async () => {
    const cases: { answer: () => Response; options?: Parameters<typeof createClient>[0]["retry"]; tries: number; code: ErrorCode }[] = [
      { answer: () => problem(503, "data_not_ready", "0"), tries: 3, code: "data_not_ready" },
      { answer: () => problem(503, "data_not_ready", "0"), options: { maxAttempts: 5 }, tries: 5, code: "data_not_ready" },
      { answer: () => problem(429, "quota_exceeded", "86400"), tries: 1, code: "quota_exceeded" },
      { answer: () => problem(429, "rate_limited", null), tries: 1, code: "rate_limited" },
      { answer: () => problem(404, "not_found", "0"), tries: 1, code: "not_found" },
      { answer: () => problem(429, "rate_limited", "0"), options: false, tries: 1, code: "rate_limited" },
    ];
    for (const c of cases) {
      const f = fake(c.answer);
      try {
        const error = await createClient({ baseUrl: f.url, retry: c.options }).listChains().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MehirError);
        expect({ code: (error as MehirError).code, tries: f.requests.length, request_id: (error as MehirError).request_id }).toEqual({ code: c.code, tries: c.tries, request_id: "req_fake" });
      } finally {
        await f.stop();
      }
    }
  });

  test("an answer that is not problem+json is a MehirError with code null and its body", async () => {
    const f = fake(() => new Response("<h1>Bad gateway</h1>", { status: 502, headers: { "content-type": "text/html", "x-request-id": "req_proxy" } }));
    try {
      const error = (await createClient({ baseUrl: `${f.url}/prefix/` }).getReadiness().catch((e: unknown) => e)) as MehirError;
      expect({ status: error.status, code: error.code, body: error.body, request_id: error.request_id }).toEqual({ status: 502, code: null, body: "<h1>Bad gateway</h1>", request_id: "req_proxy" });
      expect(new URL(f.requests[0]!.url).pathname).toBe("/prefix/readyz");
    } finally {
      await f.stop();
    }
  });
});

describe("webhook signatures (TypeScript)", () => {
  const SECRET = "whsec_0123456789abcdef";
  const BODY = '{"id":"evt_1","type":"price.alert","created":"2026-11-22T10:00:00+02:00","data":{"price_ils":"5.90"}}';
  // The server's own signer (signatureHeader of src/alerts/signature.ts) made this header for BODY.
  const HEADER = "t=1795939200,v1=7baa3a33d4882571a282409160606d7c8b911b1b69958b832eac77301cc441ee";
  const T = 1795939200;
  const V1 = HEADER.split("v1=")[1]!;

  test("a known signature verifies within the tolerance, and nothing else does", async () => {
    expect(await verifyWebhookSignature(HEADER, BODY, SECRET, { now: T })).toBe(true);
    expect(await verifyWebhookSignature(HEADER, BODY, SECRET, { now: T + 300 })).toBe(true);
    expect(await verifyWebhookSignature(`t=${T},v1=${"0".repeat(64)},v1=${V1}`, BODY, SECRET, { now: T })).toBe(true);
    const refused: [string | null, string, string, number][] = [
      [HEADER, `${BODY} `, SECRET, T],
      [HEADER, BODY, `${SECRET}x`, T],
      [HEADER, BODY, SECRET, T + 301],
      [HEADER, BODY, SECRET, T - 301],
      [`t=${T + 1},v1=${V1}`, BODY, SECRET, T],
      [`v1=${V1}`, BODY, SECRET, T],
      [`t=${T}`, BODY, SECRET, T],
      [`t=${T},v1=${V1.toUpperCase()}`, BODY, SECRET, T],
      [`t=${T},v1=${V1.slice(0, 62)}`, BODY, SECRET, T],
      ["", BODY, SECRET, T],
      [null, BODY, SECRET, T],
    ];
    for (const [header, body, secret, now] of refused) expect({ header, verified: await verifyWebhookSignature(header, body, secret, { now }) }).toEqual({ header, verified: false });
  });
});

describe("the Python client (clients/python/tests) against mehir serve", () => {
  const python = Bun.which("python3");
  const version = python ? Bun.spawnSync([python, "-c", "import sys; print(sys.version_info >= (3, 9))"]).stdout.toString().trim() : "";
  const usable = version === "True";
  if (!usable) console.warn(`skipped: the Python client's tests need python3 3.9 or later (${python ? `${python} is older` : "python3 is not on PATH"}; .ci/run installs it)`);

  test.skipIf(!usable)(
    "python3 -m unittest passes, the server's tests included",
    withLogs(logs, async () => {
      const run = Bun.spawn([python!, "-m", "unittest", "-v"], {
        cwd: join(ROOT, "clients/python"),
        // Loopback only: no proxy may be asked for 127.0.0.1.
        env: { ...process.env, MEHIR_BASE_URL: server.url, MEHIR_API_KEY: proKey, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost", PYTHONDONTWRITEBYTECODE: "1" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
      const report = `${out}\n${err}`;
      expect(code, report).toBe(0);
      expect(report).toMatch(/^OK$/m);
      expect(report).not.toContain("skipped");
      expect(report).toContain("test_a_signed_test_event");
    }),
  );
});
