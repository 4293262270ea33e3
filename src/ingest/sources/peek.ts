/** Largest indirection answer read as JSON (`[{"SPath": …}]`, `{"href": …}`). */
const MAX_POINTER_BYTES = 64 * 1024;

/**
 * Tells a small JSON pointer answer from the file itself by its first bytes, whatever the
 * content type claims (portals label both `text/html`). A JSON answer is parsed; anything else
 * comes back as a Response streaming the whole body (the bytes already read first), with the
 * original status and headers — so the caller's size limit and truncation check still apply.
 *
 * @example const peeked = await jsonOrFile(await fetch(url)); if ("json" in peeked) follow(peeked.json); else save(peeked.file);
 */
export async function jsonOrFile(res: Response): Promise<{ json: unknown } | { file: Response }> {
  if (!res.body) return { file: res };
  const reader = res.body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  const more = async () => {
    const next = await reader.read();
    if (next.done) done = true;
    else {
      head.push(next.value);
      size += next.value.length;
    }
  };
  while (!done && size < 16) await more();
  const start = new TextDecoder().decode(concat(head).subarray(0, 16)).replace(/^\uFEFF/, "");
  if (/^\s*[[{]/.test(start)) {
    while (!done && size <= MAX_POINTER_BYTES) await more();
    if (done) {
      try {
        return { json: JSON.parse(new TextDecoder().decode(concat(head)).replace(/^\uFEFF/, "")) };
      } catch {
        // not JSON after all: the file
      }
    }
  }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk);
      if (done) controller.close();
    },
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { file: new Response(stream, { status: res.status, statusText: res.statusText, headers: res.headers }) };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
