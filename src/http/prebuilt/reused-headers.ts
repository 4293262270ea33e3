/**
 * One `Headers` object for answers whose headers mostly repeat from one request to the next (the
 * hot read's: same names in the same order, and most values — content type, cache control, limits,
 * Last-Modified — the same), updated in place: only the values that changed are set. Making a
 * Response from a plain object converts every one of its headers, request after request (a
 * /prices/ answer has 13); from a Headers object the runtime copies them as they are. Safe to
 * reuse because `new Response(body, { headers })` copies the headers when made
 * (test/http/prebuilt/reused-headers.test.ts checks that Bun does): make the Response before the next call.
 *
 * @example
 * const reused = new ReusedHeaders();
 * return new Response(bytes, { status: 200, headers: reused.of(record) });
 */
export class ReusedHeaders {
  private headers = new Headers();
  private names: string[] = [];
  private values: string[] = [];

  /** A Headers object with exactly the entries of `record`, in its order; changed by the next call. */
  of(record: Record<string, string>): Headers {
    const { names, values } = this;
    let i = 0;
    for (const name in record) {
      if (names[i] !== name) return this.rebuild(record);
      const value = record[name]!;
      if (values[i] !== value) {
        this.headers.set(name, value);
        values[i] = value;
      }
      i++;
    }
    return i === names.length ? this.headers : this.rebuild(record);
  }

  /** Other names, or another order: a new Headers object, as the plain object would make it. */
  private rebuild(record: Record<string, string>): Headers {
    this.headers = new Headers(record);
    this.names = Object.keys(record);
    this.values = Object.values(record);
    return this.headers;
  }
}
