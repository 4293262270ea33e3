/**
 * `GET /` (issue 43 part 2): a small page for people, a JSON index of links for programs — never a
 * raw 404. Public, no key.
 */
import { expect, test } from "bun:test";
import { commitData, testApp } from "../helpers/app.ts";

const ctx = testApp();

test("a program gets the index: what this server is, its data's freshness, absolute links", async () => {
  const res = await ctx.app.handle(new Request("http://127.0.0.1:8080/"));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = (await res.json()) as any;
  expect(body).toMatchObject({ name: "mehir", data: { ready: false, data: false, source: "none" } });
  expect(body.links).toEqual({
    docs: "http://127.0.0.1:8080/docs",
    openapi: "http://127.0.0.1:8080/docs/json",
    errors: "http://127.0.0.1:8080/docs/errors",
    portal: "http://127.0.0.1:8080/portal/",
    widget_demo: "http://127.0.0.1:8080/widget/v1/demo.html",
    readiness: "http://127.0.0.1:8080/readyz",
  });
});

test("a browser gets a page that says what the server is, how fresh the data is, and where to go", async () => {
  commitData(ctx.deps, "2026-11-22T05:30:00+02:00");
  const res = await ctx.app.handle(new Request("http://127.0.0.1:8080/", { headers: { accept: "text/html,application/xhtml+xml" } }));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("vary")).toContain("Accept");
  const html = await res.text();
  expect(html).toContain("<title>mehir — Israeli supermarket prices API</title>");
  expect(html).toContain("updated 2026-11-22 05:30");
  for (const href of ["/portal/", "/docs", "/widget/v1/demo.html", "/docs/errors", "/docs/json"]) expect(html).toContain(`href="http://127.0.0.1:8080${href}"`);
  expect(html).not.toContain("<script");
});
