import { expect, test } from "bun:test";
import { loadSettings, SettingsError } from "../../src/config.ts";

const SECRET = "0123456789abcdef0123456789abcdef";

test("a server is standalone unless MEHIR_ROLE says otherwise, with no cluster setting needed", () => {
  const settings = loadSettings({});
  expect(settings.role).toBe("standalone");
  expect(settings.redisUrl).toBeUndefined();
  expect(settings.primaryUrl).toBeUndefined();
  expect(settings.clusterSecret).toBeUndefined();
});

test("cluster settings: environment and flags, flags win", () => {
  const env = { MEHIR_ROLE: "replica", MEHIR_PRIMARY_URL: "http://127.0.0.1:8180", MEHIR_CLUSTER_SECRET: SECRET, MEHIR_REDIS_URL: "redis://127.0.0.1:6379" };
  expect(loadSettings(env)).toMatchObject({ role: "replica", primaryUrl: "http://127.0.0.1:8180", redisUrl: "redis://127.0.0.1:6379" });
  expect(loadSettings(env, { role: "primary" }).role).toBe("primary");
});

test("a primary or replica without what it needs is refused, naming the setting", () => {
  expect(() => loadSettings({ MEHIR_ROLE: "primary" })).toThrow("missing setting --cluster-secret / MEHIR_CLUSTER_SECRET");
  expect(() => loadSettings({ MEHIR_ROLE: "replica", MEHIR_CLUSTER_SECRET: SECRET })).toThrow("missing setting --primary-url / MEHIR_PRIMARY_URL");
  expect(() => loadSettings({ MEHIR_ROLE: "leader" })).toThrow(SettingsError);
  expect(() => loadSettings({ MEHIR_PRIMARY_URL: "ftp://x" })).toThrow("--primary-url");
  expect(() => loadSettings({ MEHIR_REDIS_URL: "http://127.0.0.1:6379" })).toThrow("--redis-url");
});

test("a bad secret or Redis URL is refused without echoing it", () => {
  const short = "too-short-secret";
  try {
    loadSettings({ MEHIR_CLUSTER_SECRET: short });
    throw new Error("accepted");
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toContain("at least 32 characters");
    expect((error as Error).message).not.toContain(short);
  }
  try {
    loadSettings({ MEHIR_REDIS_URL: "redis//:hunter2@host" });
    throw new Error("accepted");
  } catch (error) {
    expect((error as Error).message).not.toContain("hunter2");
  }
});
