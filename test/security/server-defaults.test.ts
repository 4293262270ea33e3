import { afterAll, beforeAll, describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { rmSync } from "node:fs";
import { MAIN, ServeProcess, withLogs } from "../helpers/serve-process.ts";
import { portalDataDir } from "../helpers/portal/served-portal.ts";
import { testApp } from "../helpers/app.ts";
import { log } from "../../src/lib/log.ts";
import { listenOptions } from "../../src/http/listen-options.ts";
import * as requestLog from "../../src/http/observability/request-log.ts";

/**
 * Issue 39's safe defaults and "no request ends the process", on real server processes where the
 * finding was about one: a second `mehir serve` on a port in use, the metrics on their own loopback
 * listener; in process: a route added without a declaration, a throwing after-answer step, an
 * error that escapes the app.
 */

// Server processes on a loaded 2-core machine.
setDefaultTimeout(180_000);

let server: ServeProcess;
const dataDirs: string[] = [];

beforeAll(async () => {
  // A data dir with a data version and no rows: a listening server, no demo to generate, nothing fetched.
  const dataDir = portalDataDir();
  dataDirs.push(dataDir);
  server = await ServeProcess.start({ dataDir });
});

afterAll(async () => {
  await server?.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe("a port in use", () => {
  test(
    "a second mehir serve on the same port exits 1 with 'port N is in use', and the first keeps all the traffic",
    withLogs(() => server.logs(), async () => {
      const port = new URL(server.url).port;
      const secondDir = portalDataDir();
      dataDirs.push(secondDir);
      const second = Bun.spawn([process.execPath, MAIN, "serve", "--host", "127.0.0.1", "--port", port, "--data-dir", secondDir], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, MEHIR_METRICS_ADDR: "127.0.0.1:0" },
      });
      const [stderr, code] = await Promise.all([new Response(second.stderr).text(), second.exited]);
      expect(code).toBe(1);
      expect(stderr.trim()).toMatch(new RegExp(`^mehir serve: port ${port} is in use on 127\\.0\\.0\\.1.*MEHIR_PORT.*MEHIR_REUSE_PORT`));
      for (let i = 0; i < 20; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    }),
  );
});

describe("metrics", () => {
  test(
    "served on their own loopback listener, never on the API port",
    withLogs(() => server.logs(), async () => {
      expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const scraped = await fetch(server.metricsUrl!);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain("# TYPE mehir_http_requests_total counter");
      const onApi = await fetch(`${server.url}/metrics`);
      expect(onApi.status).toBe(404);
      expect(((await onApi.json()) as { code: string }).code).toBe("not_found");
    }),
  );
});

describe("undeclared routes", () => {
  test("a route added under /api/ without a declaration is refused (404, logged), never answered public", async () => {
    const ctx = testApp();
    ctx.app.get("/api/v1/added-without-declaration", () => ({ data: "secret", meta: {} }));
    const errors: unknown[] = [];
    const spy = spyOn(log, "error").mockImplementation((msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, ...fields }));
    try {
      const res = await ctx.app.handle(new Request("http://localhost/api/v1/added-without-declaration/"));
      expect(res.status).toBe(404);
      const body = (await res.json()) as { code: string };
      expect(body.code).toBe("not_found");
      expect(JSON.stringify(body)).not.toContain("secret");
      expect(errors).toContainEqual(expect.objectContaining({ msg: "route without a declared operation refused", route: "/api/v1/added-without-declaration" }));
    } finally {
      spy.mockRestore();
      ctx.close();
    }
  });
});

describe("no request ends the process", () => {
  test("a step after the answer that throws (the request log here) is logged with the request id; the answer stands and the next request is served", async () => {
    const ctx = testApp();
    const errors: Record<string, unknown>[] = [];
    const spy = spyOn(log, "error").mockImplementation((msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, ...fields }));
    const throwing = spyOn(requestLog, "logRequest").mockImplementation(() => {
      throw new Error("log writer broke");
    });
    try {
      // The failure of this request's step (a request of another test may end in the meantime too).
      let id: string | null = null;
      let found: () => void = () => {};
      const logged = new Promise<void>((resolve) => (found = resolve));
      const check = () => {
        if (id !== null && errors.some((e) => e.request_id === id && e.step === "request log")) found();
      };
      spy.mockImplementation((msg: string, fields?: Record<string, unknown>) => {
        errors.push({ msg, ...fields });
        check();
      });
      const res = await ctx.app.handle(new Request("http://localhost/healthz"));
      expect(res.status).toBe(200);
      id = res.headers.get("x-request-id");
      check();
      await logged;
      expect(errors).toContainEqual(expect.objectContaining({ msg: "after-answer step failed (the server keeps serving)", request_id: id, step: "request log" }));
      throwing.mockRestore();
      expect((await ctx.app.handle(new Request("http://localhost/healthz"))).status).toBe(200);
    } finally {
      throwing.mockRestore();
      spy.mockRestore();
      ctx.close();
    }
  });

  test("an error that escapes the app is answered 500 problem+json by the listener's last resort, logged, and the listener keeps serving", async () => {
    const errors: Record<string, unknown>[] = [];
    const spy = spyOn(log, "error").mockImplementation((msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, ...fields }));
    let calls = 0;
    const listener = Bun.serve({
      ...listenOptions({ port: 0, host: "127.0.0.1", reusePort: false }),
      fetch: () => {
        if (++calls === 1) throw new Error("escaped the app");
        return new Response("ok");
      },
    });
    try {
      const res = await fetch(`http://127.0.0.1:${listener.port}/`);
      expect(res.status).toBe(500);
      expect(res.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
      const body = (await res.json()) as { code: string; request_id: string; detail: string };
      expect(body.code).toBe("internal_error");
      expect(body.detail).not.toContain("escaped the app");
      expect(errors).toContainEqual(expect.objectContaining({ msg: "unhandled error", request_id: body.request_id }));
      expect(await (await fetch(`http://127.0.0.1:${listener.port}/`)).text()).toBe("ok");
    } finally {
      await listener.stop(true);
      spy.mockRestore();
    }
  });
});
