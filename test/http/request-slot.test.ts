import { expect, test } from "bun:test";
import { requestSlot } from "../../src/http/request/request-slot.ts";

test("a slot's value belongs to one request; slots of the same name stay apart", () => {
  const a = new Request("http://localhost/a");
  const b = new Request("http://localhost/b");
  const first = requestSlot<number>("n");
  const second = requestSlot<number>("n");
  expect(first.get(a)).toBeUndefined();
  first.set(a, 1);
  second.set(a, 2);
  expect(first.get(a)).toBe(1);
  expect(second.get(a)).toBe(2);
  expect(first.get(b)).toBeUndefined();
  first.delete(a);
  expect(first.get(a)).toBeUndefined();
  expect(second.get(a)).toBe(2);
  // Nothing shows through the request's own properties or headers.
  expect(Object.keys(a)).toEqual([]);
  expect([...a.headers]).toEqual([]);
});
