/**
 * A row leaf's tag name compared on the bytes four at a time: `name>` as little-endian 32-bit
 * words, the last one overlapping the one before (so every compare is a word), read through a
 * DataView of the document. The byte scanner checks a predicted leaf's name twice per leaf
 * (`<Name>` and `</Name>`): byte by byte that was most of rowLeaves' time.
 */
export class TagWords {
  /** `name>`'s words at 0, 4, 8, …, then the last four bytes' word (at length − 4). */
  private readonly words: Int32Array;
  /** Bytes compared: the name and its `>`. */
  readonly length: number;

  constructor(readonly name: string) {
    const length = name.length + 1;
    this.length = length;
    const bytes = new Uint8Array(Math.max(length, 4));
    for (let k = 0; k < name.length; k++) bytes[k] = name.charCodeAt(k);
    bytes[name.length] = 62; // >
    const view = new DataView(bytes.buffer);
    const full = length >>> 2;
    this.words = new Int32Array(full + 1);
    for (let w = 0; w < full; w++) this.words[w] = view.getInt32(w * 4, true);
    this.words[full] = view.getInt32(Math.max(0, length - 4), true);
  }

  /**
   * `name>` is written at `at` (an ASCII name; a name of under three chars is compared by bytes).
   * @example new TagWords("ItemCode").at(new DataView(Buffer.from("<ItemCode>1").buffer), 1, 11) // true
   */
  at(view: DataView, at: number, n: number): boolean {
    const length = this.length;
    if (at < 0 || at + length > n) return false;
    if (length < 4) {
      const name = this.name;
      for (let k = 0; k < name.length; k++) if (view.getUint8(at + k) !== name.charCodeAt(k)) return false;
      return view.getUint8(at + name.length) === 62;
    }
    const words = this.words;
    const full = words.length - 1;
    for (let w = 0; w < full; w++) if (view.getInt32(at + w * 4, true) !== words[w]) return false;
    return view.getInt32(at + length - 4, true) === words[full];
  }
}
