/**
 * `mehir accounts set-password`: the CLI's accounts sign in to the portal once it has run; the
 * password comes from stdin (a real subprocess, piped) or the prompt, never from the arguments;
 * the account's portal sessions are signed out; bad input exits 1 with one sentence.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAccounts } from "../../src/cli/accounts.ts";
import { UsageError } from "../../src/cli/command.ts";
import { openDataDir } from "../../src/db/open.ts";
import { firstLine } from "../../src/cli/read-password.ts";
import { testApp } from "../helpers/app.ts";
import { PortalClient } from "../helpers/portal/client.ts";

const ROOT = join(import.meta.dir, "../..");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mehir-cli-password-"));
  temps.push(dir);
  const db = openDataDir(dir); // an existing data dir, as `mehir serve` leaves it
  db.accounts.close();
  db.prices.close();
  return dir;
}

async function quiet<T>(work: () => Promise<T>): Promise<{ result: T; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (...parts: unknown[]) => void out.push(parts.join(" "));
  console.error = (...parts: unknown[]) => void err.push(parts.join(" "));
  try {
    return { result: await work(), out, err };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/** Signs in to a portal served from the data dir's databases; the sign-in's status. */
async function portalSignIn(dir: string, email: string, password: string): Promise<number> {
  const ctx = testApp({ db: openDataDir(dir) });
  try {
    return (await new PortalClient(ctx.app).signIn(email, password)).status;
  } finally {
    ctx.close();
  }
}

describe("mehir accounts set-password", () => {
  test("an account made by the CLI signs in to the portal once a password is piped in (subprocess, stdin)", async () => {
    const dir = dataDir();
    const made = await quiet(() => runAccounts(["create", "--email", "ops@example.com", "--plan", "pro", "--data-dir", dir]));
    expect(made.out.at(-1)).toBe("to sign in to the portal, give it a password: mehir accounts set-password ops@example.com");
    expect(await portalSignIn(dir, "ops@example.com", "operator password 1")).toBe(401);

    const proc = Bun.spawn([process.execPath, "src/main.ts", "accounts", "set-password", "OPS@example.com", "--data-dir", dir], {
      cwd: ROOT,
      stdin: new TextEncoder().encode("operator password 1\nignored second line\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(0);
    expect((await new Response(proc.stdout).text()).trim()).toBe("portal password set for ops@example.com");
    expect(await portalSignIn(dir, "ops@example.com", "operator password 1")).toBe(303);
  }, 60_000);

  test("a reset signs the account's portal sessions out; the password never comes from argv", async () => {
    const dir = dataDir();
    const ctx = testApp({ db: openDataDir(dir) });
    const browser = new PortalClient(ctx.app);
    await browser.signUp("dev@example.com", "the first password");
    expect((await browser.get("/portal/")).status).toBe(200);
    const reset = await quiet(() => runAccounts(["set-password", "dev@example.com", "--data-dir", dir], { readPassword: async () => "a fresh password" }));
    expect(reset.result).toBe(0);
    expect(reset.out).toEqual(["portal password set for dev@example.com (1 portal session(s) signed out)"]);
    expect((await browser.get("/portal/")).headers.get("location")).toBe("/portal/signin");
    expect((await browser.signIn("dev@example.com", "the first password")).status).toBe(401);
    expect((await browser.signIn("dev@example.com", "a fresh password")).status).toBe(303);
    ctx.close();
    // A password on the command line is a usage error, not a password.
    await expect(runAccounts(["set-password", "dev@example.com", "a fresh password", "--data-dir", dir])).rejects.toThrow(UsageError);
    await expect(runAccounts(["set-password", "dev@example.com", "--password", "x", "--data-dir", dir])).rejects.toThrow(UsageError);
  });

  test("unknown account (asked before any password), short and long passwords: exit 1, one sentence", async () => {
    const dir = dataDir();
    await quiet(() => runAccounts(["create", "--email", "ops@example.com", "--data-dir", dir]));
    let asked = 0;
    const io = (password: string) => ({ readPassword: async () => (asked++, password) });
    const nobody = await quiet(() => runAccounts(["set-password", "nobody@example.com", "--data-dir", dir], io("long enough password")));
    expect([nobody.result, nobody.err, asked]).toEqual([1, ["mehir accounts: no account for nobody@example.com"], 0]);
    const short = await quiet(() => runAccounts(["set-password", "ops@example.com", "--data-dir", dir], io("short")));
    expect([short.result, short.err]).toEqual([1, ["mehir accounts: the password is too short: at least 10 characters"]]);
    const long = await quiet(() => runAccounts(["set-password", "ops@example.com", "--data-dir", dir], io("x".repeat(201))));
    expect([long.result, long.err]).toEqual([1, ["mehir accounts: the password is too long: at most 200 characters"]]);
    expect(await portalSignIn(dir, "ops@example.com", "x".repeat(201))).toBe(401);
  });

  test("stdin's first line is the password, without its line ending", () => {
    expect(firstLine("secret one\r\nignored")).toBe("secret one");
    expect(firstLine("no newline")).toBe("no newline");
    expect(firstLine("")).toBe("");
  });
});
