import { describe, expect, test } from "bun:test";
import { planQuery, transpositions, type Vocabulary } from "../../src/search/query.ts";

/** A vocabulary of a few catalogue words (finals folded, as the index holds them). */
const WORDS = ["חלב", "תנובה", "במבה", "נוגט", "גרנולה", "יוגורט", "שוקולד"];
const vocab: Vocabulary = {
  has: (t) => WORDS.includes(t),
  hasPrefix: (p) => WORDS.some((w) => w.startsWith(p)),
  frequency: (t) => (WORDS.includes(t) ? 1 : 0),
};
const terms = (q: string) => {
  const plan = planQuery(q, vocab);
  return plan.kind === "text" ? plan.groups.map((g) => `${g.term}${g.prefix ? "*" : ""}`) : plan.kind;
};

describe("planQuery", () => {
  test("digits only: a barcode, leading zeros, spaces and hyphens dropped", () => {
    expect(planQuery("007290000066318", vocab)).toEqual({ kind: "barcode", barcodeKey: "7290000066318" });
    expect(planQuery("729-0000 066318", vocab)).toEqual({ kind: "barcode", barcodeKey: "7290000066318" });
    expect(planQuery("0", vocab)).toEqual({ kind: "barcode", barcodeKey: "0" });
  });

  test("the last word is a prefix while typed; a trailing one-letter word waits", () => {
    expect(terms("חלב תנו")).toEqual(["חלב", "תנו*"]);
    expect(terms("חלב תנובה ")).toEqual(["חלב", "תנובה"]);
    expect(terms("חלב ת")).toEqual(["חלב"]); // ת waits; חלב was followed by a space: complete
    expect(terms("ב")).toBe("empty");
    expect(terms('!? מ"ל')).toBe("empty"); // only a unit
  });

  test("a word repeated is searched once", () => {
    expect(terms("במבה במבה במבה נוגט")).toEqual(["במבה", "נוגט*"]);
    expect(terms("במבה נוגט במבה")).toEqual(["במבה", "נוגט", "במבה*"]); // the last one is also a prefix
  });

  test("sizes leave the words; a unit-like last word being typed stays a word", () => {
    const plan = planQuery("חלב 1 ליטר", vocab);
    expect(plan.kind === "text" && plan.quantities).toEqual([{ amount: 1000, unit: "ml", pack: null, text: "1 ליטר" }]);
    expect(terms("חלב 1 ליטר")).toEqual(["חלב"]); // complete: a size came after it
    expect(terms("ליטר חלב")).toEqual(["חלב*"]);
    expect(terms("גר")).toEqual(["גר*"]); // גרנולה being typed, not grams
    expect(terms("במבה 80 גר")).toEqual(["במבה"]); // after a number it is grams
  });

  test("prefix-letter stems that are catalogue words; unknown words only are tried with typos", () => {
    const plan = planQuery("והחלב שוקולאד", vocab);
    if (plan.kind !== "text") throw new Error(plan.kind);
    expect(plan.groups[0]).toMatchObject({ term: "והחלב", stems: ["חלב"], known: true });
    expect(plan.groups[1]).toMatchObject({ term: "שוקולאד", stems: [], known: false, prefix: true });
    const swapped = planQuery("יוגרוט ", vocab);
    expect(swapped.kind === "text" && swapped.groups[0]!.typoStems).toEqual(["יוגורט"]);
    expect(transpositions("אבג")).toEqual(["באג", "אגב"]);
  });

  test("English phrases become their Hebrew words (the Latin words beside them); a word's other number is searched beside it", () => {
    const english = planQuery("toilet paper", { ...vocab, indexed: () => true });
    if (english.kind !== "text") throw new Error(english.kind);
    expect(english.groups.map((g) => [g.term, g.alts.map((a) => a.term), g.prefix])).toEqual([
      ["נייר", ["toilet", "paper"], false],
      ["טואלט", ["toilet", "paper"], false],
    ]);
    const plural = planQuery("תפוחים", { ...vocab, indexed: (t) => t === "תפוח" });
    if (plural.kind !== "text") throw new Error(plural.kind);
    expect(plural.groups[0]).toMatchObject({ term: "תפוחימ", alts: [{ term: "תפוח", weight: 0.9 }], headKeys: ["תפוח"], known: true });
  });

  test("numbers without a unit are kept for ranking by size, count or pack", () => {
    const plan = planQuery("קוקה קולה 1.5", vocab);
    expect(plan.kind === "text" && plan.numbers).toEqual([1.5]);
  });
});
