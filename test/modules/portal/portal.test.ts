import { describe, expect, test } from "bun:test";
import { testApp } from "../../helpers/app.ts";
import { call, importMilk, MILK, withApiKey } from "../../helpers/access.ts";
import { PortalClient } from "../../helpers/portal/client.ts";

const PASSWORD = "correct horse battery";

describe("sign up, sign in, sign out", () => {
  test("sign up: argon2id hash, a hashed session token in an HttpOnly SameSite=Lax cookie, then the dashboard", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    const res = await browser.signUp("Dev@Example.com");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("mehir_session="))!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/portal");
    expect(cookie).not.toContain("Secure");
    const account = ctx.db.accounts.query("SELECT email, password_hash, plan FROM accounts").get() as { email: string; password_hash: string; plan: string };
    expect(account.email).toBe("dev@example.com");
    expect(account.plan).toBe("free");
    expect(account.password_hash).toStartWith("$argon2id$");
    const token = browser.jar.get("mehir_session")!;
    const dump = JSON.stringify(ctx.db.accounts.query("SELECT * FROM sessions").all());
    expect(dump).not.toContain(token);

    const page = await browser.get("/portal/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(browser.lastHtml).toContain('<html lang="he" dir="rtl">');
    expect(browser.lastHtml).toContain("dev@example.com");
    expect(browser.lastHtml).toContain('data-plan="free"');
    expect(browser.lastHtml).toContain('data-used="0" data-limit="200"');
    expect(browser.lastHtml).toContain("/docs");
    expect(browser.lastHtml).toContain("/widget/v1/demo.html");
    expect(browser.lastHtml.match(/<rect /g)).toHaveLength(30); // November: one bar per day
  });

  // The server never terminates TLS itself (a reverse proxy does, and says so in X-Forwarded-Proto).
  test("the session cookie is Secure when a trusted proxy says the client came over https, only then", async () => {
    const direct = testApp();
    const proxied = testApp({ trustProxy: true });
    const viaProxy = await proxied.app.handle(new Request("http://localhost/portal/signup", { headers: { "x-forwarded-proto": "https" } }));
    expect(viaProxy.headers.getSetCookie()[0]).toContain("Secure");
    const untrusted = await direct.app.handle(new Request("http://localhost/portal/signup", { headers: { "x-forwarded-proto": "https" } }));
    expect(untrusted.headers.getSetCookie()[0]).not.toContain("Secure");
  });

  test("sign out ends the session; sign in starts a new one; wrong passwords and unknown emails get the same 401", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    const oldToken = browser.jar.get("mehir_session")!;
    await browser.get("/portal/");
    const out = await browser.post("/portal/signout", { csrf: browser.csrf() });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/portal/signin");
    expect(browser.jar.has("mehir_session")).toBe(false);
    expect(ctx.db.accounts.query("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 0 });
    const replay = new PortalClient(ctx.app);
    replay.jar.set("mehir_session", oldToken);
    expect((await replay.get("/portal/")).headers.get("location")).toBe("/portal/signin");

    const wrong = await browser.signIn("dev@example.com", "not the password");
    expect(wrong.status).toBe(401);
    const wrongText = /role="alert">([^<]+)</.exec(browser.lastHtml)![1];
    const unknown = await browser.signIn("nobody@example.com", PASSWORD);
    expect(unknown.status).toBe(401);
    expect(/role="alert">([^<]+)</.exec(browser.lastHtml)![1]).toBe(wrongText!);

    const ok = await browser.signIn("DEV@example.com", PASSWORD);
    expect(ok.status).toBe(303);
    expect(browser.jar.get("mehir_session")).not.toBe(oldToken);
    expect((await browser.get("/portal/")).status).toBe(200);
  });

  test("sign-up validation: email, password length, taken email", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.get("/portal/signup");
    expect((await browser.post("/portal/signup", { csrf: browser.csrf(), email: "not-an-email", password: PASSWORD })).status).toBe(400);
    expect((await browser.post("/portal/signup", { csrf: browser.csrf(), email: "a@example.com", password: "123456789" })).status).toBe(400);
    expect(browser.lastHtml).toContain('value="a@example.com"');
    expect((await browser.post("/portal/signup", { csrf: browser.csrf(), email: "a@example.com", password: "1234567890" })).status).toBe(303);
    const other = new PortalClient(ctx.app);
    expect((await other.signUp("A@example.com")).status).toBe(409);
    expect(ctx.db.accounts.query("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 1 });
  });

  test("English with ?lang=en, remembered in a cookie", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.get("/portal/signin?lang=en");
    expect(browser.lastHtml).toContain('<html lang="en" dir="ltr">');
    expect(browser.lastHtml).toContain("Sign in");
    await browser.get("/portal/signup");
    expect(browser.lastHtml).toContain('<html lang="en" dir="ltr">');
    await browser.get("/portal/signup?lang=he");
    expect(browser.lastHtml).toContain('<html lang="he" dir="rtl">');
  });
});

describe("CSRF", () => {
  test("every form needs its token: 403 csrf_failed otherwise", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    await browser.get("/portal/");
    const token = browser.csrf();
    for (const [path, fields] of [
      ["/portal/keys", { kind: "live" }],
      ["/portal/keys", { kind: "live", csrf: token.slice(0, -1) + (token.endsWith("A") ? "B" : "A") }],
      ["/portal/signout", {}],
      ["/portal/keys/1/revoke", { csrf: "" }],
    ] as const) {
      const res = await browser.post(path, fields as Record<string, string>);
      expect(res.status, path).toBe(403);
      expect(browser.lastHtml).toContain('id="error-code">csrf_failed<');
    }
    expect(ctx.db.accounts.query("SELECT count(*) AS n FROM api_keys").get()).toEqual({ n: 0 });
    // Another session's token does not work here.
    const other = new PortalClient(ctx.app);
    await other.signUp("other@example.com");
    await other.get("/portal/");
    expect((await browser.post("/portal/keys", { kind: "live", csrf: other.csrf() })).status).toBe(403);
  });

  test("sign-in and sign-up forms need the pre-session token from their cookie", async () => {
    const ctx = testApp();
    const attacker = new PortalClient(ctx.app);
    await attacker.get("/portal/signup");
    const stolen = attacker.csrf();
    const victim = new PortalClient(ctx.app);
    expect((await victim.post("/portal/signup", { csrf: stolen, email: "v@example.com", password: PASSWORD })).status).toBe(403);
    expect((await victim.post("/portal/signin", { csrf: stolen, email: "v@example.com", password: PASSWORD })).status).toBe(403);
  });

  test("forms must be url-encoded and small", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.get("/portal/signin");
    const json = await ctx.app.handle(new Request("http://localhost/portal/signin", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }));
    expect(json.status).toBe(415);
    const huge = await browser.post("/portal/signin", { csrf: browser.csrf(), email: "x".repeat(20_000), password: "x" });
    expect(huge.status).toBe(413);
  });
});

describe("keys from the portal", () => {
  test("create keys of each kind (shown once) and use them; usage shows on the dashboard", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    const live = await browser.createKey("live", "", "server");
    expect(live).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    const testKey = await browser.createKey("test");
    expect(testKey).toMatch(/^sk_test_/);
    const pk = await browser.createKey("publishable", "https://shop.example\nhttp://localhost:3000");
    expect(pk).toMatch(/^pk_live_/);
    expect(browser.lastHtml).toContain(`/widget/v1/demo.html?key=${pk}`);

    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live))).status).toBe(200);
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(testKey))).status).toBe(200);
    const widget = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}&key=${pk}`, { headers: { origin: "http://localhost:3000" } });
    expect(widget.status).toBe(200);

    await browser.get("/portal/");
    expect(browser.lastHtml).not.toContain(live); // never shown again
    expect(browser.lastHtml).toContain(`${live.slice(0, 12)}…${live.slice(-4)}`);
    expect(browser.lastHtml).toContain('data-used="1" data-limit="200"');
    expect(browser.lastHtml).toContain("<title>2026-11-22: 1</title>");
    expect(browser.lastHtml).toContain("https://shop.example\nhttp://localhost:3000</textarea>");
    expect(browser.lastHtml).toMatch(/1 מתוך 10000 צפיות/);
  });

  test("an invalid origin refuses the key; names and origins are escaped", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    await browser.get("/portal/");
    const res = await browser.post("/portal/keys", { csrf: browser.csrf(), kind: "publishable", origins: "https://shop.example/<b>path" });
    expect(res.status).toBe(400);
    expect(browser.lastHtml).toContain("https://shop.example/&lt;b&gt;path");
    expect(ctx.db.accounts.query("SELECT count(*) AS n FROM api_keys").get()).toEqual({ n: 0 });
    await browser.createKey("live", "", '<img src=x onerror="alert(1)">');
    await browser.get("/portal/");
    expect(browser.lastHtml).not.toContain("<img src=x");
    expect(browser.lastHtml).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });

  test("revoke asks first: the dashboard links a confirmation page; a post without its confirm field revokes nothing", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    const live = await browser.createKey("live", "", "production server");
    const id = (ctx.db.accounts.query("SELECT id FROM api_keys").get() as { id: number }).id;
    await browser.get("/portal/");
    expect(browser.lastHtml).toContain(`<a class="btn small danger" href="/portal/keys/${id}/revoke">ביטול תוקף</a>`);
    expect(browser.lastHtml).not.toContain(">ביטול<");
    const confirm = await browser.get(`/portal/keys/${id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(browser.lastHtml).toContain('name="confirm" value="yes"');
    expect(browser.lastHtml).toContain(`${live.slice(0, 12)}…${live.slice(-4)}`);
    expect(browser.lastHtml).toContain("production server");
    expect(browser.lastHtml).toContain('href="/portal/"'); // keep it
    const unconfirmed = await browser.post(`/portal/keys/${id}/revoke`, { csrf: browser.csrf() });
    expect(unconfirmed.status).toBe(200);
    expect(browser.lastHtml).toContain('id="revoke-confirm"');
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live))).status).toBe(200);
    await browser.get(`/portal/keys/${id}/revoke?lang=en`);
    expect(browser.lastHtml).toContain("Yes, revoke the key");
    // Another account sees no such key; signed out, the page asks to sign in.
    const other = new PortalClient(ctx.app);
    await other.signUp("other@example.com");
    expect((await other.get(`/portal/keys/${id}/revoke`)).status).toBe(404);
    expect((await new PortalClient(ctx.app).get(`/portal/keys/${id}/revoke`)).headers.get("location")).toBe("/portal/signin");
  });

  test("revoke: the key stops working at once; another account's key cannot be revoked", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    const live = await browser.createKey("live");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live))).status).toBe(200);
    const id = (ctx.db.accounts.query("SELECT id FROM api_keys").get() as { id: number }).id;

    const other = new PortalClient(ctx.app);
    await other.signUp("other@example.com");
    await other.get("/portal/");
    expect((await other.post(`/portal/keys/${id}/revoke`, { csrf: other.csrf(), confirm: "yes" })).status).toBe(404);
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live))).status).toBe(200);

    await browser.get("/portal/");
    const res = await browser.post(`/portal/keys/${id}/revoke`, { csrf: browser.csrf(), confirm: "yes" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/?done=revoked");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live))).status).toBe(401);
    await browser.get("/portal/?done=revoked");
    expect(browser.lastHtml).toContain('role="status"');
    expect(browser.lastHtml).toContain("<details>");
  });

  test("editing a publishable key's origins takes effect at once; invalid origins are refused", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    const pk = await browser.createKey("publishable", "https://a.example");
    const id = (ctx.db.accounts.query("SELECT id FROM api_keys").get() as { id: number }).id;
    const from = (origin: string) => call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}&key=${pk}`, { headers: { origin } });
    expect((await from("https://a.example")).status).toBe(200);
    expect((await from("https://b.example")).status).toBe(403);

    await browser.get("/portal/");
    const bad = await browser.post(`/portal/keys/${id}/origins`, { csrf: browser.csrf(), origins: "b.example" });
    expect(bad.status).toBe(400);
    const ok = await browser.post(`/portal/keys/${id}/origins`, { csrf: browser.csrf(), origins: "https://B.example/" });
    expect(ok.status).toBe(303);
    expect((await from("https://b.example")).status).toBe(200);
    expect((await from("https://a.example")).status).toBe(403);
    await browser.get("/portal/");
    expect((await browser.post(`/portal/keys/${id}/origins`, { csrf: browser.csrf(), origins: "" })).status).toBe(303);
    expect((await from("https://anyone.example")).status).toBe(200);
  });
});

describe("login rate limit", () => {
  test("5 failed attempts per address and email in 15 minutes, then 429 with Retry-After, even with the right password — from that address only", async () => {
    const ctx = testApp({ trustProxy: true });
    const setup = new PortalClient(ctx.app);
    await setup.signUp("dev@example.com");
    const browser = new PortalClient(ctx.app, { "x-forwarded-for": "192.0.2.1" });
    for (let i = 0; i < 5; i++) expect((await browser.signIn("dev@example.com", "wrong password")).status).toBe(401);
    const blocked = await browser.signIn("dev@example.com", PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("900");
    expect(browser.lastHtml).toContain('id="error-code">rate_limited<');
    // The owner from another address is not locked out (no limit per email across addresses).
    const owner = new PortalClient(ctx.app, { "x-forwarded-for": "192.0.2.99" });
    expect((await owner.signIn("dev@example.com", PASSWORD)).status).toBe(303);
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 15 * 60_000);
    expect((await browser.signIn("dev@example.com", PASSWORD)).status).toBe(303);
  });

  test("failures from many addresses do not lock the owner out", async () => {
    const ctx = testApp({ trustProxy: true });
    await new PortalClient(ctx.app).signUp("dev@example.com");
    for (let i = 0; i < 3; i++) {
      const guesser = new PortalClient(ctx.app, { "x-forwarded-for": `192.0.2.${i + 1}` });
      for (let j = 0; j < 5; j++) expect((await guesser.signIn("dev@example.com", `wrong ${j}`)).status).toBe(401);
    }
    const owner = new PortalClient(ctx.app, { "x-forwarded-for": "198.51.100.1" });
    expect((await owner.signIn("dev@example.com", PASSWORD)).status).toBe(303);
  }, 60_000);

  test("10 failed attempts per address, whatever the emails; a success does not count", async () => {
    const ctx = testApp({ trustProxy: true });
    await new PortalClient(ctx.app).signUp("dev@example.com");
    const from = () => new PortalClient(ctx.app, { "x-forwarded-for": "198.51.100.7" });
    const browser = from();
    for (let i = 0; i < 9; i++) expect((await browser.signIn(`guess${i}@example.com`, "x")).status).toBe(401);
    expect((await from().signIn("dev@example.com", PASSWORD)).status).toBe(303);
    expect((await browser.signIn("guess9@example.com", "x")).status).toBe(401);
    const blocked = await from().signIn("dev@example.com", PASSWORD);
    expect(blocked.status).toBe(429);
    const elsewhere = new PortalClient(ctx.app, { "x-forwarded-for": "198.51.100.8" });
    expect((await elsewhere.signIn("guess9@example.com", "x")).status).toBe(401);
  });

  test("5 sign-ups per address in 15 minutes", async () => {
    const ctx = testApp({ trustProxy: true });
    const from = () => new PortalClient(ctx.app, { "x-forwarded-for": "198.51.100.9" });
    for (let i = 0; i < 5; i++) expect((await from().signUp(`new${i}@example.com`)).status).toBe(303);
    expect((await from().signUp("new5@example.com")).status).toBe(429);
    expect((await new PortalClient(ctx.app, { "x-forwarded-for": "198.51.100.10" }).signUp("new5@example.com")).status).toBe(303);
  });
});

describe("one form, one key", () => {
  const keyCount = (ctx: ReturnType<typeof testApp>) => (ctx.db.accounts.query("SELECT count(*) AS n FROM api_keys").get() as { n: number }).n;

  test("posting the same create-key form again (back button, replay) makes no second key and says which key the first made", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    await browser.get("/portal/");
    const form = { csrf: browser.csrf(), form_token: browser.formToken(), kind: "test", name: "ci", origins: "" };
    const first = await browser.post("/portal/keys", form);
    expect(first.status).toBe(200);
    const key = /id="new-key"[^>]*>([^<]+)</.exec(browser.lastHtml)![1]!;
    expect(key).toStartWith("sk_test_");
    const again = await browser.post("/portal/keys", form);
    expect(again.status).toBe(409);
    expect(browser.lastHtml).toContain("form_already_used");
    expect(browser.lastHtml).toContain(`${key.slice(0, 12)}…${key.slice(-4)}`); // the first key, masked
    expect(browser.lastHtml).not.toContain(key); // never the key itself a second time
    expect(keyCount(ctx)).toBe(1);
    // A fresh form makes a new key as usual.
    await browser.createKey("live");
    expect(keyCount(ctx)).toBe(2);
  }, 30_000);

  test("a double click (two posts of one form at once) makes one key", async () => {
    const ctx = testApp();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    await browser.get("/portal/");
    const form = { csrf: browser.csrf(), form_token: browser.formToken(), kind: "live", name: "", origins: "" };
    const statuses = (await Promise.all([browser.post("/portal/keys", form), browser.post("/portal/keys", form), browser.post("/portal/keys", form)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    expect(keyCount(ctx)).toBe(1);
  }, 30_000);

  test("a missing, forged or other account's form token makes no key", async () => {
    const ctx = testApp();
    const mallory = new PortalClient(ctx.app);
    await mallory.signUp("mallory@example.com");
    await mallory.get("/portal/");
    const stolen = mallory.formToken();
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com");
    await browser.get("/portal/");
    for (const token of [undefined, "x".repeat(43), stolen]) {
      const fields: Record<string, string> = { csrf: browser.csrf(), kind: "live", name: "", origins: "" };
      if (token) fields.form_token = token;
      const res = await browser.post("/portal/keys", fields);
      expect(res.status).toBe(400);
      expect(browser.lastHtml).toContain('role="alert"');
      expect(browser.formToken()).toBeTruthy(); // the page offers a fresh form
    }
    expect(keyCount(ctx)).toBe(0);
  }, 30_000);
});
