import { describe, expect, test } from "bun:test";
import { envName, flagName, loadSettings, SettingsError } from "../src/config.ts";

describe("settings", () => {
  test("defaults", () => {
    const s = loadSettings({});
    expect(s).toMatchObject({ port: 8080, host: "0.0.0.0", dataDir: "./mehir-data", quotaFree: 200, quotaBasic: 10000, quotaPro: 100000, source: "demo", fetchAt: "05:30", metrics: true });
  });

  test("environment variables, overridden by flags", () => {
    const s = loadSettings({ MEHIR_PORT: "9000", MEHIR_QUOTA_FREE: "5", MEHIR_METRICS: "off" }, { port: "9100" });
    expect(s.port).toBe(9100);
    expect(s.quotaFree).toBe(5);
    expect(s.metrics).toBe(false);
  });

  test.each([
    [{ MEHIR_PORT: "abc" }, "--port / MEHIR_PORT"],
    [{ MEHIR_PORT: "70000" }, "--port / MEHIR_PORT"],
    [{ MEHIR_SOURCE: "both" }, "--source / MEHIR_SOURCE"],
    [{ MEHIR_FETCH_AT: "25:00" }, "--fetch-at / MEHIR_FETCH_AT"],
    [{ MEHIR_RATE_PRO: "0" }, "--rate-pro / MEHIR_RATE_PRO"],
    [{ MEHIR_METRICS: "perhaps" }, "--metrics / MEHIR_METRICS"],
  ])("%j is refused with a one-line message naming the setting", (env, name) => {
    let error: unknown;
    try {
      loadSettings(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).not.toContain("\n");
  });

  test("names", () => {
    expect(envName("quotaFree")).toBe("MEHIR_QUOTA_FREE");
    expect(flagName("imageUrlTemplate")).toBe("--image-url-template");
  });
});

test("PORT, the hosting platforms' convention, is the port when MEHIR_PORT is not set; MEHIR_PORT and --port win", async () => {
  const { loadSettings } = await import("../src/config.ts");
  expect(loadSettings({ PORT: "5000" }).port).toBe(5000);
  expect(loadSettings({ PORT: "5000", MEHIR_PORT: "9000" }).port).toBe(9000);
  expect(loadSettings({ PORT: "5000" }, { port: 7000 }).port).toBe(7000);
  expect(loadSettings({}).port).toBe(8080);
  expect(() => loadSettings({ PORT: "eighty" })).toThrow("--port / MEHIR_PORT");
});
