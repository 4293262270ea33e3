import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretBox, SECRET_KEY_FILE } from "../../src/alerts/secret-box.ts";
import { signatureHeader, verifySignature } from "../../src/alerts/signature.ts";
import { addressAllowed, checkTarget, checkUrlForm, RefusedTarget, resolveAllowed } from "../../src/alerts/url-guard.ts";
import { httpSender } from "../../src/alerts/sender.ts";
import { retryDelayMs, nextAttemptAt, DELIVERY_WINDOW_MS } from "../../src/alerts/retry-schedule.ts";
import { createHmac } from "node:crypto";

const strict = { allowLoopback: false };
const loose = { allowLoopback: true };

test("signature: t and v1 = hex HMAC-SHA256 of '<t>.<body>'; verification refuses a wrong secret, body, or an old t", () => {
  const body = '{"id":"evt_1"}';
  const header = signatureHeader("whsec_abc", 1764000000, body);
  const hex = createHmac("sha256", "whsec_abc").update(`1764000000.${body}`).digest("hex");
  expect(header).toBe(`t=1764000000,v1=${hex}`);
  expect(verifySignature(header, "whsec_abc", body, 1764000100)).toBe(true);
  expect(verifySignature(header, "whsec_abd", body, 1764000100)).toBe(false);
  expect(verifySignature(header, "whsec_abc", body + " ", 1764000100)).toBe(false);
  expect(verifySignature(header, "whsec_abc", body, 1764000000 + 301)).toBe(false);
  expect(verifySignature("t=1764000000,v1=zz", "whsec_abc", body, 1764000000)).toBe(false);
});

test("addresses: only public unicast (loopback only when allowed), IPv4-mapped IPv6 included", () => {
  for (const a of ["10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::", "fe80::1", "fd00::1", "::ffff:10.0.0.1"]) {
    expect([a, addressAllowed(a, loose)]).toEqual([a, false]);
  }
  for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
    expect(addressAllowed(a, strict)).toBe(false);
    expect(addressAllowed(a, loose)).toBe(true);
  }
  expect(addressAllowed("8.8.8.8", strict)).toBe(true);
  expect(addressAllowed("2001:4860:4860::8888", strict)).toBe(true);
});

test("addresses: IPv6 forms that carry an IPv4 address are refused — all of ::/96, NAT64, 6to4, Teredo, IPv4-translated, ISATAP around a non-public IPv4", () => {
  for (const a of ["::7f00:1", "::127.0.0.1", "::a00:1", "::8.8.8.8", "::808:808", "::0.0.0.2", "64:ff9b::7f00:1", "64:ff9b:1::a00:1", "::ffff:0:7f00:1", "2002:7f00:1::1", "2001::1", "2001:4860:1::5efe:7f00:1", "2001:4860:1:0:200:5efe:a9fe:a9fe"]) {
    expect([a, addressAllowed(a, strict)]).toEqual([a, false]);
    expect([a, addressAllowed(a, loose)]).toEqual([a, false]);
  }
  // ::1 is loopback itself, not IPv4-compatible; an ISATAP id around a public IPv4 is an ordinary address.
  expect(addressAllowed("::1", loose)).toBe(true);
  expect(addressAllowed("2001:4860:1::5efe:808:808", strict)).toBe(true);
  // Not a literal address (node:net's reading): refused rather than guessed at.
  for (const a of ["127.1", "0x7f000001", "fe80::1%eth0", ""]) expect([a, addressAllowed(a, loose)]).toEqual([a, false]);
});

test("URL form: IPv4-compatible literals and port 0 refused; with the loopback setting, http to loopback only", async () => {
  for (const url of ["https://[::127.0.0.1]/x", "https://[::7f00:1]/x", "https://[::8.8.8.8]/x"]) {
    expect(() => checkUrlForm(url, strict), url).toThrow(/IPv4-compatible/);
    expect(() => checkUrlForm(url, loose), url).toThrow(/IPv4-compatible/);
  }
  expect(() => checkUrlForm("https://[2001:4860:1::5efe:7f00:1]/x", strict)).toThrow(/ISATAP around 127.0.0.1/);
  for (const url of ["https://8.8.8.8:0/x", "https://hooks.example.com:0/x", "https://hooks.example.com:00/x", "http://127.0.0.1:0/x"]) {
    expect(() => checkUrlForm(url, loose), url).toThrow(/port 0/);
  }
  for (const url of ["http://8.8.8.8/x", "http://93.184.216.34/x", "http://[2001:4860:4860::8888]/x"]) {
    expect(() => checkUrlForm(url, loose), url).toThrow(/http is for loopback addresses only/);
  }
  expect(checkUrlForm("https://8.8.8.8/x", loose).hostname).toBe("8.8.8.8");
  expect(checkUrlForm("http://[::1]:8080/x", loose).port).toBe("8080");
  // By name, the addresses it resolves to decide (here a literal stands for an answer: no DNS query leaves the machine).
  await expect(resolveAllowed("8.8.8.8", loose, true)).rejects.toThrow(/http is for loopback addresses only/);
  expect(await resolveAllowed("8.8.8.8", loose, false)).toEqual([{ address: "8.8.8.8", family: 4 }]);
  expect((await checkTarget("http://localhost:1/x", loose)).addresses.every((a) => ["127.0.0.1", "::1"].includes(a.address))).toBe(true);
});

test("URL form: https only (http only with the loopback setting), no credentials, no private literal", () => {
  expect(() => checkUrlForm("http://8.8.8.8/x", strict)).toThrow(RefusedTarget);
  expect(() => checkUrlForm("https://u:p@8.8.8.8/x", strict)).toThrow(/credentials/);
  expect(() => checkUrlForm("https://[fe80::1]/x", strict)).toThrow(/not a public address/);
  expect(() => checkUrlForm("https://0x7f000001/x", strict)).toThrow(/not a public address/); // WHATWG URL normalises it to 127.0.0.1
  expect(checkUrlForm("https://hooks.example.com/x", strict).hostname).toBe("hooks.example.com");
  expect(checkUrlForm("http://127.0.0.1:8080/x", loose).port).toBe("8080");
});

test("DNS: a name resolving to a loopback or private address is refused", async () => {
  await expect(checkTarget("https://localhost/x", strict)).rejects.toThrow(/resolves to/);
  await expect(checkTarget("https://no-such-host.invalid/x", strict)).rejects.toThrow(/does not resolve/);
  expect((await checkTarget("http://localhost:1/x", loose)).addresses.length).toBeGreaterThan(0);
});

test("the sender refuses a private target at delivery time too, without connecting", async () => {
  const send = httpSender(strict);
  expect(await send("https://127.0.0.1:1/x", {}, "{}", 1000)).toEqual({ error: expect.stringContaining("refused") });
  expect(await send("https://localhost:1/x", {}, "{}", 1000)).toEqual({ error: expect.stringContaining("resolves to") });
});

test("the sender: redirects are not followed (the 3xx is the result); a silent receiver times out", async () => {
  let hits = 0;
  let port = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (r): Promise<Response> => {
      hits++;
      if (new URL(r.url).pathname === "/slow") return new Promise<Response>(() => {});
      return new Response(null, { status: 301, headers: { location: `http://127.0.0.1:${port}/elsewhere` } });
    },
  });
  port = server.port!;
  try {
    const send = httpSender(loose);
    expect(await send(`http://127.0.0.1:${server.port}/hook`, {}, "{}", 5000)).toEqual({ status: 301 });
    expect(hits).toBe(1);
    expect(await send(`http://127.0.0.1:${server.port}/slow`, {}, "{}", 200)).toEqual({ error: "no answer within 0.2 s" });
  } finally {
    server.stop(true);
  }
});

test("secret box: sealed under a 0600 key file beside the database, made on first use; bound to its alert; another key cannot open it", () => {
  const dir = mkdtempSync(join(tmpdir(), "mehir-box-"));
  try {
    const box = SecretBox.beside(join(dir, "accounts.sqlite"));
    expect(existsSync(join(dir, SECRET_KEY_FILE))).toBe(false); // a server with no alerts writes nothing
    const sealed = box.seal("whsec_secret", "alrt_a");
    expect(statSync(join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(Buffer.from(sealed).toString("latin1")).not.toContain("whsec_secret");
    expect(SecretBox.beside(join(dir, "accounts.sqlite")).open(sealed, "alrt_a")).toBe("whsec_secret");
    expect(() => box.open(sealed, "alrt_b")).toThrow();
    expect(() => SecretBox.ephemeral().open(sealed, "alrt_a")).toThrow();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("retry schedule: about 10 s, 30 s, 2 min, then ×4 up to 4 h apart, with ±20 % jitter, within 24 h", () => {
  const mid = () => 0.5;
  expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n, mid))).toEqual([10_000, 30_000, 120_000, 480_000, 1_920_000, 7_680_000, 4 * 3600_000, 4 * 3600_000]);
  expect(retryDelayMs(1, () => 0)).toBe(8_000);
  expect(retryDelayMs(1, () => 0.999999)).toBe(12_000);
  expect(retryDelayMs(3, () => 0)).toBe(96_000);
  expect(retryDelayMs(40, () => 0)).toBe(3.2 * 3600_000);
  expect(retryDelayMs(40, () => 0.999999)).toBeLessThanOrEqual(4.8 * 3600_000);
  // A failing delivery's attempts over the day: the first at 0, then until the next would be past 24 h.
  const attempts = [0];
  for (let at: number | null = 0; at !== null; ) {
    at = nextAttemptAt(0, at, attempts.length, mid);
    if (at !== null) attempts.push(at);
  }
  expect(attempts.slice(0, 4)).toEqual([0, 10_000, 40_000, 160_000]);
  expect(attempts.length).toBe(12);
  expect(attempts.at(-1)!).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
  expect(DELIVERY_WINDOW_MS - attempts.at(-1)!).toBeLessThan(4 * 3600_000);
  expect(nextAttemptAt(0, DELIVERY_WINDOW_MS - 1000, 12, mid)).toBeNull();
});
