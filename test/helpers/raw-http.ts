import { connect } from "node:net";

/** An answer read off the socket: the status line's code, the headers (lower-case names), the body as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` (bytes as written, e.g. a request line no client library would send: no Host,
 * an empty one, an absolute-form or un-normalized target) to 127.0.0.1:`port` and reads the
 * answer until the server closes the connection (send `Connection: close` with HTTP/1.1).
 * Resolves with status 0 when the connection ends with no answer. The client does not half-close
 * its side after the request (a real client waits for the answer): Bun drops a GET whose client
 * has already half-closed while an async handler is still making its answer.
 */
export function rawRequest(port: number, request: string | Uint8Array): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: "127.0.0.1", port }, () => void socket.write(request));
    socket.on("data", (chunk: Buffer | string) => chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const head = split < 0 ? text : text.slice(0, split);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: split < 0 ? "" : text.slice(split + 4) });
    });
  });
}

/** A request's bytes: `head` lines (request line, then headers), a blank line, the body. */
export function rawBytes(head: string[], body = ""): string {
  return [...head, ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []), "", body].join("\r\n");
}
