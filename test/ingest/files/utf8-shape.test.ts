import { describe, expect, test } from "bun:test";
import { incompleteUtf8Tail, looksLikeDamagedUtf8, utf8Shape } from "../../../src/ingest/files/utf8-shape.ts";
import { encodeWindows1255 } from "../../helpers/ingest/zip.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("incompleteUtf8Tail", () => {
  test("counts the bytes of a character the buffer cuts short", () => {
    expect(incompleteUtf8Tail(new Uint8Array([0x41, 0xd7]))).toBe(1); // first byte of a Hebrew letter
    expect(incompleteUtf8Tail(new Uint8Array([0x41, 0xe2, 0x82]))).toBe(2); // "€" is E2 82 AC
    expect(incompleteUtf8Tail(new Uint8Array([0x41, 0xf0, 0x9f, 0x98]))).toBe(3);
  });
  test("0 for whole characters, ASCII and empty buffers", () => {
    expect(incompleteUtf8Tail(utf8("חלב"))).toBe(0);
    expect(incompleteUtf8Tail(utf8("abc€"))).toBe(0);
    expect(incompleteUtf8Tail(new Uint8Array())).toBe(0);
  });
});

describe("utf8Shape / looksLikeDamagedUtf8", () => {
  test("Hebrew UTF-8: every letter a valid sequence", () => {
    expect(utf8Shape(utf8("חלב 3%"))).toEqual({ valid: 3, invalid: 0 });
  });
  test("windows-1255 Hebrew: no valid sequence, every letter a stray byte", () => {
    expect(utf8Shape(encodeWindows1255("חלב 3%"))).toEqual({ valid: 0, invalid: 3 });
    expect(looksLikeDamagedUtf8(encodeWindows1255("שוקולד פרה חלב 100 גרם"))).toBe(false);
  });
  test("UTF-8 with one stray byte per eight letters or fewer is damaged UTF-8", () => {
    const letters = utf8("אבגדהוזח");
    expect(looksLikeDamagedUtf8(Buffer.concat([letters, new Uint8Array([0xff])]))).toBe(true);
    expect(looksLikeDamagedUtf8(Buffer.concat([letters.subarray(0, 14), new Uint8Array([0xff])]))).toBe(false); // 7 letters
    expect(looksLikeDamagedUtf8(utf8("plain ascii"))).toBe(false);
  });
});
