import { expect, test } from "bun:test";
import { publicOrigin } from "../../src/http/request/public-origin.ts";

const req = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

test("the request's own origin, as the URL API gives it", () => {
  for (const url of ["http://127.0.0.1:8080/api/v1/x?y=1", "https://prices.example/a", "http://[::1]:9000/", "http://localhost"]) {
    expect(publicOrigin(req(url), false)).toBe(new URL(url).origin);
  }
});

test("behind a trusted proxy: X-Forwarded-Proto and a plain X-Forwarded-Host; junk is ignored", () => {
  const headers = { "x-forwarded-proto": "https", "x-forwarded-host": "prices.example" };
  expect(publicOrigin(req("http://127.0.0.1:8080/x", headers), true)).toBe("https://prices.example");
  expect(publicOrigin(req("http://127.0.0.1:8080/x", headers), false)).toBe("http://127.0.0.1:8080");
  expect(publicOrigin(req("http://127.0.0.1:8080/x", { "x-forwarded-proto": "gopher", "x-forwarded-host": "evil.example/<script>" }), true)).toBe("http://127.0.0.1:8080");
});
