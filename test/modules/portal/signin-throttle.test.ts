import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { ServeProcess, withLogs } from "../../helpers/serve-process.ts";
import { portalClient, portalDataDir, servePortal } from "../../helpers/portal/served-portal.ts";

// Starts a server and hashes passwords: sized for a loaded 2-core machine.
setDefaultTimeout(120_000);

/**
 * The sign-in limits on a real `mehir serve` (audit F3, F6): parallel guesses cannot race the
 * check (each is counted before its password is hashed), and failures from one address never lock
 * the owner out from another.
 */
const PASSWORD = "correct horse battery";
let dataDir = "";
let server: ServeProcess;
const logs = () => server?.logs() ?? "";

beforeAll(async () => {
  dataDir = portalDataDir();
  server = await servePortal(dataDir);
  for (const email of ["raced@example.com", "owner@example.com"]) {
    expect((await portalClient(server, "203.0.113.1").signUp(email, PASSWORD)).status).toBe(303);
  }
});

afterAll(async () => {
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("40 parallel wrong guesses from one address get 5 password checks; the right password then gets 429 there, and signs in from another address", withLogs(logs, async () => {
  const attacker = portalClient(server, "198.51.100.5");
  await attacker.get("/portal/signin");
  const csrf = attacker.csrf();
  const guess = (password: string) => attacker.post("/portal/signin", { csrf, email: "raced@example.com", password });
  // Once one guess is refused for the limit, 5 are counted: the right password comes after that, still in parallel.
  const refused = Promise.withResolvers<void>();
  const guesses = Array.from({ length: 40 }, (_, i) =>
    guess(`wrong guess ${i}`).then((res) => {
      if (res.status === 429) refused.resolve();
      return res;
    }),
  );
  await Promise.race([refused.promise, Promise.all(guesses)]);
  const right = await guess(PASSWORD);
  const answers = await Promise.all(guesses);
  const statuses = answers.map((r) => r.status);
  expect(statuses.filter((s) => s === 401)).toHaveLength(5);
  expect(statuses.filter((s) => s === 429)).toHaveLength(35);
  expect(right.status).toBe(429);
  expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(800);
  expect(right.headers.getSetCookie().some((c) => c.startsWith("mehir_session="))).toBe(false);

  const owner = portalClient(server, "198.51.100.6");
  expect((await owner.signIn("raced@example.com", PASSWORD)).status).toBe(303);
  expect((await owner.get("/portal/")).status).toBe(200);
}));

test("five wrong passwords from address A, then the right one from address B: signed in", withLogs(logs, async () => {
  const a = portalClient(server, "192.0.2.10");
  for (let i = 0; i < 5; i++) expect((await a.signIn("owner@example.com", `wrong ${i}`)).status).toBe(401);
  expect((await a.signIn("owner@example.com", PASSWORD)).status).toBe(429);
  const b = portalClient(server, "192.0.2.11");
  const res = await b.signIn("owner@example.com", PASSWORD);
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/portal/");
  expect((await b.get("/portal/")).status).toBe(200);
}));
