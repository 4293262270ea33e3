import { describe, expect, test } from "bun:test";
import { ReusedHeaders } from "../../../src/http/prebuilt/reused-headers.ts";

const entries = (headers: Headers) => [...headers];

describe("ReusedHeaders", () => {
  test("new Response(body, { headers }) copies a Headers object when made — what reusing it relies on", () => {
    const headers = new Headers({ etag: "1", "x-request-id": "a" });
    const response = new Response("x", { headers });
    headers.set("x-request-id", "b");
    headers.delete("etag");
    expect(response.headers.get("x-request-id")).toBe("a");
    expect(response.headers.get("etag")).toBe("1");
  });

  test("each call gives exactly the record's headers, as the record itself would, and leaves earlier answers alone", () => {
    const reused = new ReusedHeaders();
    const records: Record<string, string>[] = [
      { "x-request-id": "req_1", "x-quota-remaining": "10", etag: 'W/"1-a"', "content-type": "application/json" },
      { "x-request-id": "req_2", "x-quota-remaining": "9", etag: 'W/"1-a"', "content-type": "application/json" }, // values change
      { "x-request-id": "req_3", "x-quota-remaining": "8", etag: 'W/"1-b"' }, // one name fewer
      { "x-request-id": "req_4", "x-quota-remaining": "7", etag: 'W/"1-b"', vary: "Accept-Encoding" }, // another name
      { etag: 'W/"1-b"', "x-request-id": "req_5", "x-quota-remaining": "6", vary: "Accept-Encoding" }, // another order
      { etag: 'W/"1-b"', "x-request-id": "req_6", "x-quota-remaining": "6", vary: "Accept-Encoding" },
    ];
    const answers: Response[] = [];
    for (const record of records) {
      const response = new Response("x", { headers: reused.of(record) });
      expect(entries(response.headers)).toEqual(entries(new Response("x", { headers: record }).headers));
      answers.push(response);
    }
    answers.forEach((response, i) => expect(response.headers.get("x-request-id")).toBe(`req_${i + 1}`));
    expect(answers[2]!.headers.has("content-type")).toBe(false);
  });
});
