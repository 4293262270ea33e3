/**
 * Resolves true once `check` holds, asking every 20 ms; false after `ms`. For state that another
 * process or server changes and announces nowhere a test can listen (Redis, a mirror's poll).
 * @example expect(await within(5000, () => store.send("PING", []).then((r) => r === "PONG", () => false))).toBe(true);
 */
export async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(20);
  }
  return false;
}
