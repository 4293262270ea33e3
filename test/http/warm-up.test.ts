import { describe, expect, spyOn, test } from "bun:test";
import { settle, testApp } from "../helpers/app.ts";
import { log } from "../../src/lib/log.ts";
import { warmUp } from "../../src/http/warm-up.ts";

const ctx = testApp();

describe("warmUp (before the server listens)", () => {
  test("answers /healthz and /readyz through the whole app (their real routes and hooks), neither logged nor counted: no client asked", async () => {
    const lines: Record<string, unknown>[] = [];
    const info = spyOn(log, "info").mockImplementation((msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, ...fields }));
    try {
      // No data imported yet: live, not ready — the answers a probe gets during a first start.
      expect(await warmUp(ctx.app)).toEqual([200, 503]);
      await settle();
      expect(lines.filter((l) => l.msg === "request")).toEqual([]);
      // A client's probe is logged as always.
      await ctx.app.handle(new Request("http://localhost/readyz"));
      await settle();
      expect(lines.filter((l) => l.msg === "request").map((l) => [l.route, l.status])).toEqual([["/readyz", 503]]);
    } finally {
      info.mockRestore();
    }
  });
});
