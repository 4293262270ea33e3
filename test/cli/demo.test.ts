import { afterAll, expect, spyOn, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../src/cli/command.ts";
import { demoCommand } from "../../src/cli/demo.ts";

const root = mkdtempSync(join(tmpdir(), "mehir-demo-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("mehir demo writes the chosen chains' files and prints a summary", async () => {
  const out = join(root, "out");
  const logged: string[] = [];
  const spy = spyOn(console, "log").mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));
  try {
    const code = await demoCommand.run(["--out", out, "--seed", "3", "--now", "2026-11-22T08:00:00+02:00", "--chains", "rami-levy,victory", "--scale", "0.02"]);
    expect(code).toBe(0);
  } finally {
    spy.mockRestore();
  }
  expect(readdirSync(out).sort()).toEqual(["rami-levy", "victory"]);
  expect(readdirSync(join(out, "rami-levy")).some((n) => /^PriceFull7290058140886-001-20261122\d{4}\.gz$/.test(n))).toBe(true);
  expect(logged.join("\n")).toContain("2 chains, 9 stores");
  expect(logged.join("\n")).toContain("mehir import");
});

test("mehir demo refuses a folder that is not empty and bad values", async () => {
  const out = join(root, "out");
  await expect(demoCommand.run(["--out", out])).rejects.toBeInstanceOf(UsageError);
  await expect(demoCommand.run(["--out", join(root, "x"), "--seed", "abc"])).rejects.toThrow("--seed expects a positive integer");
  await expect(demoCommand.run(["--out", join(root, "x"), "--scale", "2"])).rejects.toThrow("--scale");
  await expect(demoCommand.run(["--out", join(root, "x"), "--now", "yesterday"])).rejects.toThrow("--now");
  await expect(demoCommand.run(["--out", join(root, "x"), "--chains", "nope"])).rejects.toThrow('unknown chain "nope"');
  await expect(demoCommand.run(["--out", join(root, "x"), "--bogus"])).rejects.toBeInstanceOf(UsageError);
});
