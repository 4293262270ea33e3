import { expect, test } from "bun:test";
import { readJsonBody } from "../../src/http/request/json-body.ts";

const post = (body: BodyInit, headers: Record<string, string>) => new Request("http://x/", { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
const code = (p: Promise<unknown>) => p.then(() => "ok", (e: { code?: string }) => e.code);

test("a body with a declared length is read at once and still measured; a chunked one as it streams", async () => {
  const small = JSON.stringify({ items: [{ barcode: "7290000066318" }], note: "חלב" });
  expect(await readJsonBody(post(small, { "content-length": String(Buffer.byteLength(small)) }))).toEqual(JSON.parse(small));
  // A length declared too small (possible in-process, where no HTTP framing cuts the body): still 413.
  const big = JSON.stringify({ pad: "x".repeat(70 * 1024) });
  expect(await code(readJsonBody(post(big, { "content-length": "10" })))).toBe("payload_too_large");
  expect(await code(readJsonBody(post(big, { "content-length": String(big.length) })))).toBe("payload_too_large");
  const stream = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 80; i++) controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
      controller.close();
    },
  });
  expect(await code(readJsonBody(post(stream, {})))).toBe("payload_too_large");
  expect(await code(readJsonBody(post("{", { "content-length": "1" })))).toBe("invalid_parameter");
});
