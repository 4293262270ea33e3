import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, healthOf, htmlResponse, jsonResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";
import { startFakeFtp } from "../../helpers/ingest/fake-ftp.ts";

const RL = "7290058140886";
const LOGIN_PAGE = (token: string) =>
  `<!DOCTYPE html><html><head><meta name="csrftoken" content="${token}"></head><body><form action="/login/user" method="post"><input name="username"><input type="password" name="password"></form></body></html>`;

/** The Cerberus web portal as it behaves: CSRF + cftpSID, sessions that expire, HTML login page instead of JSON. */
function cerberusPortal(files: Record<string, Uint8Array>, opts: { folder?: string; expireAfterListings?: number; expireBeforeDownload?: boolean; filePage?: (token: string) => string } = {}) {
  let sid = 0;
  const sessions = new Set<string>();
  let listings = 0;
  let loggedIn = 0;
  const folder = opts.folder ?? "/";
  const portal = startFakePortal((req, url, body) => {
    const cookie = req.headers.get("cookie") ?? "";
    const session = cookie.match(/cftpSID=(\w+)/)?.[1] ?? "";
    if (url.pathname === "/login" && req.method === "GET") {
      const id = `s${++sid}`;
      return new Response(LOGIN_PAGE(`csrf-${id}`), { headers: { "content-type": "text/html", "set-cookie": `cftpSID=${id}; Path=/; HttpOnly` } });
    }
    if (url.pathname === "/login/user" && req.method === "POST") {
      const form = new URLSearchParams(body);
      const good = form.get("username") === "RamiLevi" && form.get("password") === "" && form.get("csrftoken") === `csrf-${session}`;
      if (!good) return new Response(null, { status: 302, headers: { location: "/login" } });
      sessions.add(session);
      loggedIn++;
      return new Response(null, { status: 302, headers: { location: "/file" } });
    }
    if (url.pathname === "/file" && req.method === "GET") {
      if (!sessions.has(session)) return new Response(null, { status: 302, headers: { location: "/login" } });
      return htmlResponse(opts.filePage?.(`after-${session}`) ?? `<html><head><meta name="csrftoken" content="after-${session}"></head><body>files</body></html>`);
    }
    if (url.pathname === "/file/json/dir" && req.method === "POST") {
      const form = new URLSearchParams(body);
      listings++;
      if (opts.expireAfterListings !== undefined && listings > opts.expireAfterListings && listings === opts.expireAfterListings + 1) sessions.clear();
      if (!sessions.has(session) || form.get("csrftoken") !== `after-${session}`) return htmlResponse(LOGIN_PAGE("again"));
      if (form.get("cd") !== folder) return jsonResponse({ aaData: [] });
      return jsonResponse({
        sEcho: 1,
        iTotalRecords: Object.keys(files).length,
        aaData: Object.entries(files).map(([fname, bytes]) => ({ fname, typeLabel: "file", type: "file", size: bytes.length, ftime: "2026-11-22 05:30:00" })),
      });
    }
    if (url.pathname.startsWith("/file/d/")) {
      if (opts.expireBeforeDownload && loggedIn === 1) sessions.clear();
      if (!sessions.has(session)) return htmlResponse(LOGIN_PAGE("again"));
      const rel = decodeURIComponent(url.pathname.slice("/file/d/".length));
      const prefix = folder === "/" ? "" : folder.slice(1) + "/";
      if (!rel.startsWith(prefix)) return htmlResponse("not found", 404);
      const bytes = files[rel.slice(prefix.length)];
      return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
    }
    return htmlResponse("not found", 404);
  });
  return { portal, logins: () => loggedIn };
}

const files: Record<string, Uint8Array> = {
  [`Stores${RL}-202611220500.xml`]: storesXml(RL),
  [`PriceFull${RL}-001-202611220300.gz`]: priceFullGz(RL, "1"),
  [`PriceFull${RL}-001-202611220100.gz`]: priceFullGz(RL, "1", 1),
  [`PriceFull${RL}-002-202611220310.gz`]: priceFullGz(RL, "2"),
  [`PromoFull${RL}-001-202611220300.gz`]: promoFullGz(RL, "1"),
  [`NULLPrice${RL}-001-202611220800.gz`]: priceFullGz(RL, "1"),
  [`PriceFull7291056200008-299-202611220010.gz`]: priceFullGz("7291056200008", "299"), // Super Cofix's file in Rami Levy's folder
  [`PriceFull${RL}-003-202611210300.gz`]: priceFullGz(RL, "3"), // yesterday
};

const chain = (url: string, extra: Record<string, unknown> = {}) => ({
  slug: "rami-levy",
  chain_codes: [RL],
  portal: { family: "cerberus", base_url: url, username: "RamiLevi", password: "", ...extra },
});

describe("Cerberus", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("login with CSRF and session cookie, JSON listing, policy, downloads, health, skip on the second run", async () => {
    const { portal } = cerberusPortal(files);
    stops.push(portal.stop);
    const db = memoryPrices();
    const dataDir = tempDir();
    const registry = registryOf(chain(portal.url));
    const report = await fetchChains({ db, registry, dataDir, date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.listed).toBe(8);
    expect(r.downloaded.map((d) => d.fileName)).toEqual([
      `Stores${RL}-202611220500.xml`,
      `PriceFull${RL}-001-202611220300.gz`,
      `PromoFull${RL}-001-202611220300.gz`,
      `PriceFull${RL}-002-202611220310.gz`,
    ]);
    // The stray file's code belongs to no chain of this registry: reported (issue 40).
    expect(r.dropped).toMatchObject({ "unknown chain code": 1, "other day": 1, delta: 1, older: 1 });
    expect(readdirSync(join(dataDir, "downloads", "rami-levy", DAY)).sort()).toEqual(r.downloaded.map((d) => d.fileName).sort());
    expect(report.files).toHaveLength(4);
    const login = portal.requests.find((q) => q.path === "/login/user")!;
    expect(login.cookie).toBe("cftpSID=s1");
    expect(new URLSearchParams(login.body).get("Submit")).toBe("Sign in");
    expect(new URLSearchParams(portal.requests.find((q) => q.path === "/file/json/dir")!.body).get("iDisplayLength")).toBe("100000");

    const health = healthOf(db, "rami-levy")!;
    expect(health).toMatchObject({ last_attempt_at: "2026-11-22T10:00:00+02:00", last_success_at: "2026-11-22T10:00:00+02:00", files_fetched: 4, last_error: null });
    expect((db.query("SELECT count(*) AS n FROM fetched_files").get() as { n: number }).n).toBe(4);

    const again = await fetchChains({ db, registry, dataDir, date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(again.chains[0]).toMatchObject({ status: "ok", alreadyFetched: 4, downloaded: [] });
    expect(again.files).toEqual([]);
  });

  test("an expired session answering the HTML login page instead of JSON triggers one re-login", async () => {
    const { portal, logins } = cerberusPortal(files, { expireAfterListings: 0 });
    stops.push(portal.stop);
    const report = await fetchChains({ db: memoryPrices(), registry: registryOf(chain(portal.url)), dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.downloaded).toHaveLength(4);
    expect(logins()).toBe(2);
  });

  test("downloads answering the login page log in again once (shared by concurrent downloads) and never save the HTML", async () => {
    const { portal, logins } = cerberusPortal(files, { expireBeforeDownload: true });
    stops.push(portal.stop);
    const report = await fetchChains({ db: memoryPrices(), registry: registryOf(chain(portal.url)), dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {}, perHostConcurrency: 4 });
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.downloaded).toHaveLength(4);
    expect(logins()).toBe(2);
    for (const d of report.chains[0]!.downloaded) expect(Bun.file(d.path).size).toBe(files[d.fileName]!.length);
  });

  test("Super Yuda's /Yuda folder is listed with cd and downloaded under it", async () => {
    const { portal } = cerberusPortal({ [`PriceFull7290058177776-003-202611220400.gz`]: priceFullGz("7290058177776", "3") }, { folder: "/Yuda" });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "super-yuda", chain_codes: ["7290058177776"], portal: { family: "cerberus", base_url: portal.url, username: "RamiLevi", password: "", folder: "/Yuda" } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.downloaded).toHaveLength(1);
    expect(portal.requests.some((q) => q.path === "/file/d/Yuda/PriceFull7290058177776-003-202611220400.gz")).toBe(true);
  });

  test("a password field on the file page after sign-in (change-password dialog) is not a rejected login", async () => {
    // The 2026 file manager: the user named, a logout link, and a change-password form.
    const filePage = (token: string) =>
      `<!DOCTYPE html><html><head><meta name="csrftoken" content="${token}"></head><body><div class="navbar">Logged in as RamiLevi <a href="/logout">Sign out</a></div>` +
      `<div id="chpasswd" class="modal"><form action="/user/chpasswd" method="post"><input type="password" name="password"><input type="password" name="password2"></form></div><table id="fileList"></table></body></html>`;
    const { portal, logins } = cerberusPortal(files, { filePage });
    stops.push(portal.stop);
    const registry = registryOf(chain(portal.url));
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.errors).toEqual([]);
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.portals[0]!.family).toBe("cerberus");
    expect(logins()).toBe(1);
  });

  test("wrong credentials fail the chain with a clear error, recorded in its health", async () => {
    const { portal } = cerberusPortal(files);
    stops.push(portal.stop);
    const db = memoryPrices();
    const registry = registryOf(chain(portal.url, { username: "Nobody" }));
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("failed");
    expect(healthOf(db, "rami-levy")!.last_error).toContain("login rejected");
    expect(healthOf(db, "rami-levy")!.last_success_at).toBeNull();
  });

  test("when the web portal fails (500s), the FTP fallback lists and downloads", async () => {
    const web = startFakePortal(() => htmlResponse("Internal Server Error", 500));
    const ftp = await startFakeFtp({ user: "RamiLevi", password: "", folders: { "/": files } });
    stops.push(web.stop, ftp.stop);
    const db = memoryPrices();
    const registry = registryOf(chain(web.url, { fallback_url: ftp.url }));
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.portals[0]!.url).toBe(ftp.url);
    expect(r.status).toBe("ok");
    expect(r.downloaded.map((d) => d.fileName).sort()).toEqual([
      `PriceFull${RL}-001-202611220300.gz`,
      `PriceFull${RL}-002-202611220310.gz`,
      `PromoFull${RL}-001-202611220300.gz`,
      `Stores${RL}-202611220500.xml`,
    ]);
    for (const d of r.downloaded) expect(Bun.file(d.path).size).toBe(files[d.fileName]!.length);
    expect(ftp.commands).toContain("USER RamiLevi");
    expect(web.requests.length).toBe(3); // GET /login, retried twice
  });

  test("an FTP server demanding TLS: the plain login is refused, the adapter logs in again with AUTH TLS and transfers over PROT P", async () => {
    const web = startFakePortal(() => htmlResponse("down", 503));
    const ftp = await startFakeFtp({ user: "RamiLevi", password: "", folders: { "/": files }, tls: "require" });
    stops.push(web.stop, ftp.stop);
    const report = await fetchChains({ db: memoryPrices(), registry: registryOf(chain(web.url, { fallback_url: ftp.url })), dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.downloaded).toHaveLength(4);
    for (const d of r.downloaded) expect(new Uint8Array(await Bun.file(d.path).arrayBuffer())).toEqual(new Uint8Array(files[d.fileName]!));
    expect(ftp.commands.filter((c) => c.startsWith("USER"))).toEqual(["USER RamiLevi", "USER RamiLevi"]);
    expect(ftp.commands).toContain("AUTH TLS");
    expect(ftp.logins).toEqual([{ secure: true, secureData: true }]);
  });

  test("ftps:// starts with AUTH TLS; a server refusing AUTH TLS is served in plain FTP", async () => {
    const offering = await startFakeFtp({ user: "RamiLevi", password: "", folders: { "/": files }, tls: "offer" });
    const refusing = await startFakeFtp({ user: "RamiLevi", password: "", folders: { "/": files }, tls: "none" });
    stops.push(offering.stop, refusing.stop);
    const secure = await fetchChains({ db: memoryPrices(), registry: registryOf(chain(offering.url.replace("ftp:", "ftps:"))), dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(secure.chains[0]!.downloaded).toHaveLength(4);
    expect(offering.logins).toEqual([{ secure: true, secureData: true }]);
    const plain = await fetchChains({ db: memoryPrices(), registry: registryOf(chain(refusing.url)), dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(plain.chains[0]!.downloaded).toHaveLength(4);
    expect(refusing.commands).not.toContain("AUTH TLS");
    expect(refusing.logins).toEqual([{ secure: false, secureData: false }]);
  });

  test("an FTP transfer cut short is a truncated download, reported per file", async () => {
    const web = startFakePortal(() => htmlResponse("down", 503));
    const name = `PriceFull${RL}-001-202611220300.gz`;
    const ftp = await startFakeFtp({ user: "RamiLevi", password: "", folders: { "/": { [name]: priceFullGz(RL, "1", 40), [`Stores${RL}-202611220500.xml`]: storesXml(RL) } }, truncate: name });
    stops.push(web.stop, ftp.stop);
    const report = await fetchChains({ db: memoryPrices(), registry: registryOf(chain(web.url, { fallback_url: ftp.url })), dataDir: tempDir(), date: DAY, http: { ...FAST_HTTP, retries: 1 }, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("partial");
    expect(r.downloaded.map((d) => d.fileName)).toEqual([`Stores${RL}-202611220500.xml`]);
    expect(r.errors.join(" ")).toContain(name);
  });
});
