import { describe, expect, spyOn, test } from "bun:test";
import { testApp, get, commitData, settle } from "./helpers/app.ts";
import { log } from "../src/lib/log.ts";

const { app } = testApp();

describe("envelope, request ids and errors", () => {
  test("X-Request-Id is the server's own: a client's sane one is only logged (client_request_id); a trusted proxy's is taken", async () => {
    const lines: Record<string, unknown>[] = [];
    const info = spyOn(log, "info").mockImplementation((msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, ...fields }));
    try {
      const generated = await get(app, "/healthz");
      expect(generated.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
      // A client's id would let it replay another request's metering verdict (README "Request ids").
      const sent = await get(app, "/healthz", { "x-request-id": "client-abc.123" });
      const own = sent.headers.get("x-request-id")!;
      expect(own).toMatch(/^req_[0-9a-f]{32}$/);
      const refused = await get(app, "/healthz", { "x-request-id": "<script>" });
      const refusedId = refused.headers.get("x-request-id")!;
      expect(refusedId).toMatch(/^req_/);
      await settle();
      expect(lines.find((l) => l.msg === "request" && l.request_id === own)).toMatchObject({ client_request_id: "client-abc.123" });
      // Not sane: not logged either.
      expect(lines.find((l) => l.msg === "request" && l.request_id === refusedId)).not.toHaveProperty("client_request_id");
    } finally {
      info.mockRestore();
    }
    const proxied = testApp({ trustProxy: true });
    expect((await get(proxied.app, "/healthz", { "x-request-id": "proxy-abc.123" })).headers.get("x-request-id")).toBe("proxy-abc.123");
    expect((await get(proxied.app, "/healthz", { "x-request-id": "<script>" })).headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("unknown route → 404 problem+json with a stable code and the request id", async () => {
    const { status, headers, body } = await get(app, "/api/v1/nope");
    expect(status).toBe(404);
    expect(headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(body).toEqual({ type: "/docs/errors#not_found", title: "Not found", status: 404, detail: "No such resource.", code: "not_found", request_id: headers.get("x-request-id") });
  });

  test("known path, wrong method → 405 with Allow", async () => {
    const res = await app.handle(new Request("http://localhost/api/v1/chains/", { method: "DELETE" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect(((await res.json()) as any).code).toBe("method_not_allowed");
  });

  test("the data endpoints answer 503 data_not_ready with Retry-After before the first import", async () => {
    const { status, headers, body } = await get(app, "/api/v1/prices/?barcode=7290000066318");
    expect([401, 503]).toContain(status); // 401 when the access layer asks for a key first
    if (status === 503) {
      expect(body.code).toBe("data_not_ready");
      expect(headers.get("retry-after")).toBe("10");
    }
  });

  test("/healthz is live; /readyz is 503 until data is loaded", async () => {
    expect((await get(app, "/healthz")).body).toEqual({ status: "ok" });
    const ready = await get(app, "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ ready: false, data: false });
  });
});

describe("edge paths and bodies", () => {
  test("a double slash is another path: 404, not 405 for a method the single-slash route takes", async () => {
    const { app } = testApp();
    const res = await app.handle(new Request("http://localhost/api/v1/prices//"));
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("not_found");
  });

  test("a body that is not JSON is invalid_parameter naming the body (a contract code)", async () => {
    const { app, deps } = testApp();
    commitData(deps); // past data_not_ready
    const { newKey } = await import("./helpers/keys.ts");
    const key = newKey(deps, "pro").headers;
    const res = await app.handle(
      new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: "{not json" }),
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ code: "invalid_parameter", param: "body" });
  });
});
