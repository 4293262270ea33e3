/**
 * The signed-in change-password form (current password, the new one twice; the other sessions
 * signed out; CSRF, same-origin and attempt limits like sign-in) and the dashboard's statement of
 * the plan's limits: the per-minute rate and the burst the token bucket really allows.
 */
import { describe, expect, test } from "bun:test";
import { testApp } from "../../helpers/app.ts";
import { call, importMilk, withApiKey } from "../../helpers/access.ts";
import { PortalClient } from "../../helpers/portal/client.ts";

const OLD = "correct horse battery";
const NEW = "a brand new password";

describe("change password", () => {
  test("current password + the new one twice: changed, this session kept, every other one signed out", async () => {
    const ctx = testApp();
    const here = new PortalClient(ctx.app);
    await here.signUp("dev@example.com", OLD);
    const elsewhere = new PortalClient(ctx.app);
    await elsewhere.signIn("dev@example.com", OLD);
    expect((await elsewhere.get("/portal/")).status).toBe(200);
    const bystander = new PortalClient(ctx.app);
    await bystander.signUp("other@example.com", OLD);

    await here.get("/portal/");
    expect(here.lastHtml).toContain('href="/portal/password"');
    expect((await here.get("/portal/password")).status).toBe(200);
    const res = await here.post("/portal/password", { csrf: here.csrf(), current_password: OLD, new_password: NEW, new_password_again: NEW });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/?done=password");
    expect((await here.get("/portal/?done=password")).status).toBe(200);
    expect(here.lastHtml).toContain('role="status"');
    expect((await elsewhere.get("/portal/")).headers.get("location")).toBe("/portal/signin");
    expect((await bystander.get("/portal/")).status).toBe(200);
    const hash = ctx.db.accounts.query("SELECT password_hash FROM accounts WHERE email = 'dev@example.com'").get() as { password_hash: string };
    expect(hash.password_hash).toStartWith("$argon2id$");
    expect((await new PortalClient(ctx.app).signIn("dev@example.com", OLD)).status).toBe(401);
    expect((await new PortalClient(ctx.app).signIn("dev@example.com", NEW)).status).toBe(303);
  });

  test("refusals keep the password: wrong current (401), the two differ, too short, too long; no CSRF token or another site's post: 403", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com", OLD);
    await browser.get("/portal/password?lang=en");
    const tryWith = (fields: Record<string, string>, extra: Record<string, string> = {}) =>
      browser.post("/portal/password", { csrf: browser.csrf(), current_password: OLD, new_password: NEW, new_password_again: NEW, ...fields }, extra);
    expect((await tryWith({ current_password: "not the password" })).status).toBe(401);
    expect(browser.lastHtml).toContain("The current password is wrong.");
    expect((await tryWith({ new_password_again: `${NEW}!` })).status).toBe(400);
    expect(browser.lastHtml).toContain("The two new passwords differ.");
    expect((await tryWith({ new_password: "short", new_password_again: "short" })).status).toBe(400);
    expect((await tryWith({ new_password: "x".repeat(201), new_password_again: "x".repeat(201) })).status).toBe(400);
    expect((await browser.post("/portal/password", { csrf: "", current_password: OLD, new_password: NEW, new_password_again: NEW })).status).toBe(403);
    await browser.get("/portal/password");
    expect((await tryWith({}, { origin: "https://evil.example" })).status).toBe(403);
    expect((await new PortalClient(ctx.app).signIn("dev@example.com", OLD)).status).toBe(303);
    // Signed out: the form asks to sign in.
    expect((await new PortalClient(ctx.app).get("/portal/password")).headers.get("location")).toBe("/portal/signin");
  });

  test("wrong current passwords are limited per account (5 per 15 minutes), like sign-in; a right one is refused meanwhile", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com", OLD);
    await browser.get("/portal/password");
    const csrf = browser.csrf();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await browser.post("/portal/password", { csrf, current_password: `wrong ${i}`, new_password: NEW, new_password_again: NEW })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const blocked = await browser.post("/portal/password", { csrf, current_password: OLD, new_password: NEW, new_password_again: NEW });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await new PortalClient(ctx.app).signIn("dev@example.com", OLD)).status).toBe(303);
  });
});

describe("the dashboard states the limits the API applies", () => {
  test("Free: 60 a minute in bursts of 15 — and 15 back-to-back calls pass where the 16th gets 429", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    const key = await browser.createKey("live");
    await browser.get("/portal/?lang=en");
    const line = /<p id="rate-line" data-rate="(\d+)" data-burst="(\d+)">([^<]+)<\/p>/.exec(browser.lastHtml)!;
    expect(line.slice(1, 3)).toEqual(["60", "15"]);
    expect(line[3]).toContain("60 requests a minute per key, in bursts of at most 15 at once");
    expect(browser.lastHtml).toContain("mehir accounts set-plan dev@example.com basic");
    for (const [plan, rate, burst] of [["free", 60, 15], ["basic", 300, 75], ["pro", 1200, 300]] as const) {
      expect(browser.lastHtml).toMatch(new RegExp(`data-plan="${plan}"><th scope="row">[^<]+</th><td>[\\d,]+</td><td>${rate}</td><td>${burst}</td>`));
    }
    const burst = Number(line[2]);
    const statuses: number[] = [];
    for (let i = 0; i <= burst; i++) statuses.push((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(burst);
    expect(statuses.at(-1)).toBe(429);
  });

  test("the rate settings change what the dashboard says", async () => {
    const ctx = testApp({ env: { MEHIR_RATE_FREE: "120" } });
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    await browser.get("/portal/");
    expect(browser.lastHtml).toContain('data-rate="120" data-burst="30"');
  });
});
