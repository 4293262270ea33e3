import { expect, test } from "bun:test";
import { HashingGate } from "../../../src/modules/portal/hashing-gate.ts";

/** Work that runs until the test ends it, noting how many run at once. */
function controlled(gate: HashingGate) {
  const ends: (() => void)[] = [];
  let most = 0;
  const started: string[] = [];
  const run = (address: string, name: string) =>
    gate.run(address, () => {
      started.push(name);
      most = Math.max(most, gate.load.running);
      const { promise, resolve } = Promise.withResolvers<string>();
      ends.push(() => resolve(name));
      return promise;
    });
  return { run, started, ends, most: () => most };
}

test("at most `slots` at once, at most `perAddress` for one address; the rest wait their turn, first come first served", async () => {
  const gate = new HashingGate(2, 1, 10);
  const c = controlled(gate);
  const results = [c.run("a", "a1"), c.run("a", "a2"), c.run("b", "b1"), c.run("c", "c1"), c.run("b", "b2")];
  await Promise.resolve();
  // a2 waits for a1 (one per address); b1 takes the second slot; c1 and b2 wait for a slot.
  expect(c.started).toEqual(["a1", "b1"]);
  expect(gate.load).toEqual({ running: 2, waiting: 3 });
  c.ends.shift()!(); // a1 ends: a2 may start now and is first in line
  await Bun.sleep(0);
  expect(c.started).toEqual(["a1", "b1", "a2"]);
  while (c.ends.length) {
    c.ends.shift()!();
    await Bun.sleep(0);
  }
  expect(await Promise.all(results)).toEqual(["a1", "a2", "b1", "c1", "b2"]);
  expect(c.most()).toBe(2);
  expect(gate.load).toEqual({ running: 0, waiting: 0 });
});

test("past `maxWaiting` waiters, run answers null at once without running the work", async () => {
  const gate = new HashingGate(1, 1, 2);
  const c = controlled(gate);
  const running = c.run("a", "first");
  const waiting = [c.run("b", "w1"), c.run("c", "w2")];
  expect(await c.run("d", "refused")).toBeNull();
  expect(c.started).toEqual(["first"]);
  while (c.started.length < 3 || c.ends.length) {
    c.ends.shift()?.();
    await Bun.sleep(0);
  }
  expect(await running).toBe("first");
  expect(await Promise.all(waiting)).toEqual(["w1", "w2"]);
});

test("a failing work item frees its slot", async () => {
  const gate = new HashingGate(1, 1, 5);
  await expect(gate.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  expect(await gate.run("a", async () => "next")).toBe("next");
  expect(gate.load).toEqual({ running: 0, waiting: 0 });
});

test("by default: half the cores at once (at least one), two per address", () => {
  const gate = new HashingGate();
  expect(gate.slots).toBe(Math.max(1, Math.floor(navigator.hardwareConcurrency / 2)));
  expect(gate.perAddress).toBe(2);
});
