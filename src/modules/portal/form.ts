/** Reads a portal form: application/x-www-form-urlencoded, at most 16 KiB. */

export const MAX_FORM_BYTES = 16 * 1024;

export type FormResult = { ok: true; form: URLSearchParams } | { ok: false; status: 413 | 415 };

export async function readForm(request: Request): Promise<FormResult> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return { ok: false, status: 415 };
  if (Number(request.headers.get("content-length") ?? "0") > MAX_FORM_BYTES) return { ok: false, status: 413 };
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_FORM_BYTES) {
        await reader.cancel();
        return { ok: false, status: 413 };
      }
      chunks.push(value);
    }
  }
  return { ok: true, form: new URLSearchParams(new TextDecoder().decode(Buffer.concat(chunks))) };
}
