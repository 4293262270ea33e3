import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { ServeProcess, withLogs } from "../../helpers/serve-process.ts";
import { portalClient, portalDataDir, servePortal } from "../../helpers/portal/served-portal.ts";

setDefaultTimeout(120_000);

/**
 * Portal form posts from another site are refused even with the right CSRF token (audit I5), on a
 * real `mehir serve` trusting a proxy: the Origin header's host must be the one the request reached
 * (or the forwarded one), and Sec-Fetch-Site must not say cross-site or same-site. Posts without
 * either header still work on their token.
 */
const PASSWORD = "correct horse battery";
let dataDir = "";
let server: ServeProcess;
const logs = () => server?.logs() ?? "";

beforeAll(async () => {
  dataDir = portalDataDir();
  server = await servePortal(dataDir);
});

afterAll(async () => {
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const FOREIGN: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }];

test("sign-up and sign-in posts from another site: 403 csrf_failed with the right token; without Origin, or from this origin, they work", withLogs(logs, async () => {
  const browser = portalClient(server, "192.0.2.20");
  await browser.get("/portal/signup");
  const csrf = browser.csrf();
  for (const headers of FOREIGN) {
    const res = await browser.post("/portal/signup", { csrf, email: "dev@example.com", password: PASSWORD }, headers);
    expect(res.status, JSON.stringify(headers)).toBe(403);
    expect(browser.lastHtml).toContain('id="error-code">csrf_failed<');
    expect(res.headers.getSetCookie().some((c) => c.startsWith("mehir_session="))).toBe(false);
  }
  // No Origin header at all (an old browser): the token decides.
  expect((await browser.post("/portal/signup", { csrf, email: "dev@example.com", password: PASSWORD })).status).toBe(303);

  const again = portalClient(server, "192.0.2.21");
  await again.get("/portal/signin");
  const fields = { csrf: again.csrf(), email: "dev@example.com", password: PASSWORD };
  for (const headers of FOREIGN) expect((await again.post("/portal/signin", fields, headers)).status).toBe(403);
  // From this origin, as a browser posts it.
  const own = await again.post("/portal/signin", fields, { origin: server.url, "sec-fetch-site": "same-origin" });
  expect(own.status).toBe(303);
}));

test("signed-in forms: another site's post with the session's token is refused and changes nothing; this origin's works", withLogs(logs, async () => {
  const browser = portalClient(server, "192.0.2.22");
  expect((await browser.signUp("keys@example.com", PASSWORD)).status).toBe(303);
  for (const headers of FOREIGN) {
    await browser.get("/portal/");
    const res = await browser.post("/portal/keys", { csrf: browser.csrf(), form_token: browser.formToken(), kind: "live", name: "", origins: "" }, headers);
    expect(res.status, JSON.stringify(headers)).toBe(403);
    expect(browser.lastHtml).toContain('id="error-code">csrf_failed<');
  }
  await browser.get("/portal/");
  expect(browser.lastHtml).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
  expect(browser.lastHtml).not.toContain('class="keys"');
  const signOut = await browser.post("/portal/signout", { csrf: browser.csrf() }, { origin: "https://evil.example" });
  expect(signOut.status).toBe(403);
  expect((await browser.get("/portal/")).status).toBe(200);

  await browser.get("/portal/");
  const made = await browser.post("/portal/keys", { csrf: browser.csrf(), form_token: browser.formToken(), kind: "live", name: "", origins: "" }, { origin: server.url });
  expect(made.status).toBe(200);
  expect(browser.lastHtml).toMatch(/sk_live_[0-9A-Za-z]{32}/);
}));

test("behind the trusted proxy, the public origin (X-Forwarded-Host and -Proto) is this origin", withLogs(logs, async () => {
  const proxied = { "x-forwarded-host": "prices.example", "x-forwarded-proto": "https" };
  const browser = portalClient(server, "192.0.2.23", proxied);
  await browser.get("/portal/signup");
  const fields = { csrf: browser.csrf(), email: "proxied@example.com", password: PASSWORD };
  expect((await browser.post("/portal/signup", fields, { origin: "https://other.example" })).status).toBe(403);
  expect((await browser.post("/portal/signup", fields, { origin: "https://prices.example", "sec-fetch-site": "same-origin" })).status).toBe(303);
}));
