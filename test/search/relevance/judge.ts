/**
 * The relevance suite's queries and judgements. Queries are made from the corpus' item names by
 * rules (seeded, so every run asks the same) and from hand-written lists; what is relevant is
 * decided by rules over the item names only — never from what the service answers. The rules use
 * their own small text analysis (below), not src/search's.
 */
import type { Corpus, CorpusItem } from "./corpus.ts";

export const CLASSES = ["exact", "reordered", "brand", "category", "size", "typo", "english", "abbreviation", "morphology", "barcode"] as const;
export type QueryClass = (typeof CLASSES)[number];

export interface JudgedQuery {
  q: string;
  cls: QueryClass;
  /** `products.id` of every relevant product. */
  relevant: Set<number>;
  corpus: string;
}

// ---------- the judge's own text analysis ----------

const FINALS: Record<string, string> = { "ך": "כ", "ם": "מ", "ן": "נ", "ף": "פ", "ץ": "צ" };

/** Niqqud and accents stripped, quote look-alikes removed, final letters folded, lower case. */
export function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/["'`\u05F3\u05F4\u2018\u2019\u201C\u201D]/g, "")
    .replace(/[ךםןףץ]/g, (c) => FINALS[c]!)
    .toLowerCase();
}

/** Words and numbers of a text (letters and digits apart; `1,5` is 1.5). */
export function words(text: string): string[] {
  return fold(text).replace(/(\d),(\d)/g, "$1.$2").match(/\d+(?:\.\d+)?%?|\p{L}+/gu) ?? [];
}

const UNIT: Record<string, string> = {
  גרמ: "g", גר: "g", ג: "g", גרמים: "g", קג: "kg", קילו: "kg", מל: "ml", ליטר: "l", ל: "l", ליט: "l", יח: "u", יחידות: "u", יחידה: "u",
};
/** Words with unit spellings unified (for "the same name written otherwise"). */
export function canonicalWords(text: string): string[] {
  return words(text).map((w) => UNIT[w] ?? w.replace(/^(\d+)\.0+$/, "$1"));
}
const isNumber = (w: string) => /^\d/.test(w);
const isHebrewWord = (w: string) => /^[\u05D0-\u05EA]+$/.test(w);

/** The first words of a name that are not numbers. */
function headWords(name: string): string[] {
  return words(name).filter((w) => !isNumber(w));
}

/** The words of a name as written (final letters kept, quotes dropped), numbers left out: what a shopper types. */
function typedWords(name: string): string[] {
  return (
    name
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .replace(/["'`\u05F3\u05F4\u2018\u2019\u201C\u201D]/g, "")
      .toLowerCase()
      .match(/\d+(?:[.,]\d+)?%?|\p{L}+/gu) ?? []
  ).filter((w) => !isNumber(w));
}

const WORD_SETS = new WeakMap<CorpusItem, { name: Set<string>; all: Set<string>; head: string[] }>();
/** An item's words (served name; with its manufacturer) and head words, computed once. */
function wordsOf(item: CorpusItem) {
  let sets = WORD_SETS.get(item);
  if (!sets) {
    const name = new Set(words(item.name));
    sets = { name, all: new Set([...name, ...(item.manufacturer ? words(item.manufacturer) : [])]), head: headWords(item.name) };
    WORD_SETS.set(item, sets);
  }
  return sets;
}

// ---------- seeded choice ----------

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function sample<T>(list: T[], n: number, random: () => number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

// ---------- hand-written lists ----------

/**
 * Category words: the query and the head words (first word, or first two) of the products it
 * names. A product whose name starts otherwise (`ריבת חלב`, `מלבין קפה`) is not relevant.
 */
const CATEGORY: [string, string[]][] = [
  ["חלב", ["חלב"]], ["לחם", ["לחם"]], ["סוכר", ["סוכר"]], ["אורז", ["אורז"]], ["יין", ["יין"]], ["שמפו", ["שמפו"]],
  ["קפה", ["קפה"]], ["תה", ["תה"]], ["ביצים", ["ביצים", "ביצה"]], ["גבינה", ["גבינה", "גבינת"]], ["שמנת", ["שמנת"]],
  ["חמאה", ["חמאה"]], ["יוגורט", ["יוגורט"]], ["קמח", ["קמח"]], ["מלח", ["מלח"]], ["שמן", ["שמן"]], ["פסטה", ["פסטה"]],
  ["טונה", ["טונה"]], ["בירה", ["בירה"]], ["מים", ["מים"]], ["מיץ", ["מיץ"]], ["שוקולד", ["שוקולד"]], ["עוגיות", ["עוגיות", "עוגיה", "עוגייה"]],
  ["דבש", ["דבש"]], ["חומוס", ["חומוס"]], ["טחינה", ["טחינה"]], ["קטשופ", ["קטשופ"]], ["מיונז", ["מיונז"]], ["סבון", ["סבון"]],
  ["נייר טואלט", ["נייר טואלט"]], ["חיתולים", ["חיתולים", "חיתול"]], ["משחת שיניים", ["משחת שיניים"]], ["נוזל כלים", ["נוזל כלים"]],
  ["אבקת כביסה", ["אבקת כביסה"]], ["קוטג'", ["קוטג"]], ["גלידה", ["גלידה"]], ["פיתות", ["פיתות", "פיתה"]], ["קורנפלקס", ["קורנפלקס"]],
  ["שוקו", ["שוקו"]], ["לבן", ["לבן"]], ["לבנה", ["לבנה"]], ["עוף", ["עוף"]], ["נקניק", ["נקניק"]], ["נקניקיות", ["נקניקיות", "נקניקיה"]],
  ["ממרח", ["ממרח"]], ["ריבה", ["ריבה", "ריבת"]], ["קרקר", ["קרקר", "קרקרים"]], ["פריכיות", ["פריכיות", "פריכית"]], ["מרכך", ["מרכך"]],
  ["דאודורנט", ["דאודורנט"]], ["מגבונים", ["מגבונים", "מגבון"]], ["סלט", ["סלט"]], ["רוטב", ["רוטב"]], ["חטיף", ["חטיף", "חטיפי"]],
  ["משקה", ["משקה"]], ["אטריות", ["אטריות"]], ["קוסקוס", ["קוסקוס"]], ["שעועית", ["שעועית"]], ["עדשים", ["עדשים"]], ["תירס", ["תירס"]],
  ["זיתים", ["זיתים", "זית"]], ["מלפפונים", ["מלפפונים", "מלפפון"]], ["פתיתים", ["פתיתים"]], ["וופל", ["וופל", "ופל"]], ["עוגה", ["עוגה", "עוגת"]],
];

/** Plural/singular: the query in one number, the head words of the products it names (either number). */
const NUMBER_FORMS: [string, string[]][] = [
  ["תפוחים", ["תפוח", "תפוחים", "תפוחי עץ"]], ["תפוח", ["תפוח", "תפוחים"]], ["עגבניה", ["עגבניה", "עגבניות", "עגבנייה"]], ["עגבניות", ["עגבניה", "עגבניות", "עגבנייה"]],
  ["לימונים", ["לימון", "לימונים"]], ["לימון", ["לימון", "לימונים"]], ["בצלים", ["בצל", "בצלים"]], ["בצל", ["בצל", "בצלים"]],
  ["מלפפון", ["מלפפון", "מלפפונים"]], ["בננה", ["בננה", "בננות"]], ["בננות", ["בננה", "בננות"]], ["ביצה", ["ביצה", "ביצים"]],
  ["גבינות", ["גבינה", "גבינות", "גבינת"]], ["יוגורטים", ["יוגורט", "יוגורטים"]], ["עוגיה", ["עוגיה", "עוגיות", "עוגייה"]],
  ["פיתה", ["פיתה", "פיתות"]], ["לחמניה", ["לחמניה", "לחמניות", "לחמנייה"]], ["לחמניות", ["לחמניה", "לחמניות", "לחמנייה"]],
  ["תפוזים", ["תפוז", "תפוזים"]], ["תפוז", ["תפוז", "תפוזים"]], ["אגסים", ["אגס", "אגסים"]], ["פלפלים", ["פלפל", "פלפלים"]],
  ["חצילים", ["חציל", "חצילים"]], ["ענב", ["ענב", "ענבים"]], ["גזרים", ["גזר", "גזרים"]], ["תמר", ["תמר", "תמרים"]],
  ["זית", ["זית", "זיתים"]], ["חטיפים", ["חטיף", "חטיפים", "חטיפי"]], ["משקאות", ["משקה", "משקאות"]], ["שקד", ["שקד", "שקדים"]],
  ["אגוז", ["אגוז", "אגוזים", "אגוזי"]], ["חיתול", ["חיתול", "חיתולים"]], ["מגבון", ["מגבון", "מגבונים"]], ["נקניקיה", ["נקניקיה", "נקניקיות", "נקניקייה"]],
  ["קרקרים", ["קרקר", "קרקרים"]], ["אבוקדו", ["אבוקדו"]], ["תפוחי אדמה", ["תפוח אדמה", "תפוחי אדמה", "תפוא"]], ["תפוח אדמה", ["תפוח אדמה", "תפוחי אדמה", "תפוא"]],
  ["כרוב", ["כרוב"]], ["בטטות", ["בטטה", "בטטות"]], ["קישואים", ["קישוא", "קישואים"]], ["אפרסקים", ["אפרסק", "אפרסקים"]], ["שזיף", ["שזיף", "שזיפים"]],
];

/** Prefix-letter clusters a shopper types before a word. */
const CLUSTERS = ["ה", "ו", "ב", "ל", "מ", "ש", "כ", "וה", "וב", "ול", "מה", "שה", "בה", "לה", "וכש", "שב", "ומה"];

/**
 * English and Latin queries with the Hebrew head words (`head`) or the words anywhere in the name
 * or manufacturer (`has`) of the products they mean. Written by hand, apart from the service's
 * dictionary.
 */
const ENGLISH: { q: string; head?: string[]; has?: string[] }[] = [
  { q: "milk", head: ["חלב"] }, { q: "eggs", head: ["ביצים", "ביצה"] }, { q: "bread", head: ["לחם"] }, { q: "cheese", head: ["גבינה", "גבינת"] },
  { q: "cottage", has: ["קוטג"] }, { q: "cottage cheese", has: ["קוטג"] }, { q: "hummus", head: ["חומוס"] }, { q: "tahini", head: ["טחינה"] }, { q: "rice", head: ["אורז"] },
  { q: "sugar", head: ["סוכר"] }, { q: "oil", head: ["שמן"] }, { q: "olive oil", head: ["שמן זית"] }, { q: "toilet paper", head: ["נייר טואלט"] },
  { q: "diapers", head: ["חיתולים", "חיתול"] }, { q: "shampoo", head: ["שמפו"] }, { q: "beer", head: ["בירה"] }, { q: "wine", head: ["יין"] },
  { q: "coffee", head: ["קפה"] }, { q: "tea", head: ["תה"] }, { q: "butter", head: ["חמאה"] }, { q: "yogurt", head: ["יוגורט"] }, { q: "yoghurt", head: ["יוגורט"] },
  { q: "flour", head: ["קמח"] }, { q: "salt", head: ["מלח"] }, { q: "pasta", head: ["פסטה"] }, { q: "tuna", head: ["טונה"] }, { q: "water", head: ["מים"] },
  { q: "juice", head: ["מיץ"] }, { q: "orange juice", head: ["מיץ תפוזים"] }, { q: "chocolate", head: ["שוקולד"] }, { q: "cookies", head: ["עוגיות", "עוגיה", "עוגייה"] },
  { q: "honey", head: ["דבש"] }, { q: "ketchup", head: ["קטשופ"] }, { q: "mayonnaise", head: ["מיונז"] }, { q: "mayo", head: ["מיונז"] }, { q: "soap", head: ["סבון"] },
  { q: "toothpaste", head: ["משחת שיניים"] }, { q: "sour cream", head: ["שמנת חמוצה"] }, { q: "cream", head: ["שמנת"] }, { q: "tomatoes", head: ["עגבניה", "עגבניות"] },
  { q: "cucumbers", head: ["מלפפון", "מלפפונים"] }, { q: "onions", head: ["בצל", "בצלים"] }, { q: "potatoes", head: ["תפוח אדמה", "תפוחי אדמה", "תפוא"] },
  { q: "carrots", head: ["גזר"] }, { q: "bananas", head: ["בננה", "בננות"] }, { q: "apples", head: ["תפוח", "תפוחים", "תפוחי עץ"] }, { q: "lemons", head: ["לימון", "לימונים"] },
  { q: "avocado", head: ["אבוקדו"] }, { q: "ice cream", head: ["גלידה"] }, { q: "pita", head: ["פיתה", "פיתות"] }, { q: "cornflakes", has: ["קורנפלקס"] },
  { q: "dish soap", head: ["נוזל כלים"] }, { q: "laundry detergent", head: ["אבקת כביסה", "גל כביסה", "נוזל כביסה"] }, { q: "wafers", head: ["וופל", "ופל"] },
  { q: "crackers", head: ["קרקר", "קרקרים"] }, { q: "rice cakes", head: ["פריכיות"] }, { q: "chocolate spread", head: ["ממרח שוקולד"] }, { q: "jam", head: ["ריבה", "ריבת"] },
  { q: "noodles", head: ["אטריות"] }, { q: "couscous", head: ["קוסקוס"] }, { q: "corn", head: ["תירס"] }, { q: "olives", head: ["זיתים", "זית"] }, { q: "pickles", head: ["מלפפונים", "מלפפון"] },
  { q: "sausages", head: ["נקניקיות", "נקניקיה"] }, { q: "chicken", has: ["עוף"] }, { q: "wet wipes", head: ["מגבונים"] }, { q: "conditioner", head: ["מרכך"] },
  { q: "deodorant", head: ["דאודורנט"] }, { q: "cake", head: ["עוגה", "עוגת"] }, { q: "lentils", head: ["עדשים"] }, { q: "beans", head: ["שעועית"] },
  { q: "bamba", has: ["במבה"] }, { q: "bissli", has: ["ביסלי"] }, { q: "tnuva", has: ["תנובה"] }, { q: "osem", has: ["אסמ"] }, { q: "elite", has: ["עלית"] },
  { q: "strauss", has: ["שטראוס"] }, { q: "coca cola", has: ["קוקה"] }, { q: "coke", has: ["קוקה"] }, { q: "nutella", has: ["נוטלה"] }, { q: "tara", has: ["טרה"] },
  { q: "yotvata", has: ["יטבתה"] }, { q: "prigat", has: ["פריגת"] }, { q: "telma", has: ["תלמה"] }, { q: "sugat", has: ["סוגת"] }, { q: "wissotzky", has: ["ויסוצקי"] },
  { q: "pantene", has: ["פנטנ"] }, { q: "fairy", has: ["פיירי"] }, { q: "ariel", has: ["אריאל"] }, { q: "huggies", has: ["האגיס"] }, { q: "pampers", has: ["פמפרס"] },
  { q: "goldstar", has: ["גולדסטאר"] }, { q: "heinz", has: ["היינצ"] }, { q: "knorr", has: ["קנור"] }, { q: "shufersal", has: ["שופרסל"] }, { q: "tapuchips", has: ["תפוציפס"] },
  { q: "pringles", has: ["פרינגלס"] }, { q: "sabra", has: ["צבר"] }, { q: "achla", has: ["אחלה"] }, { q: "nescafe", has: ["נסקפה"] }, { q: "danone", has: ["דנונה"] },
  { q: "milky", has: ["מילקי"] }, { q: "materna", has: ["מטרנה"] }, { q: "lily", has: ["לילי"] }, { q: "sano", has: ["סנו"] }, { q: "neviot", has: ["נביעות"] },
];

// ---------- relevance rules ----------

function startsWithAny(item: CorpusItem, heads: string[][]): boolean {
  const w = wordsOf(item).head;
  return heads.some((h) => h.every((x, i) => w[i] === x));
}
function hasAll(item: CorpusItem, needed: string[], manufacturerToo = false): boolean {
  const own = manufacturerToo ? wordsOf(item).all : wordsOf(item).name;
  return needed.every((w) => own.has(w));
}
const ids = (items: CorpusItem[], test: (item: CorpusItem) => boolean) => new Set(items.filter(test).map((i) => i.id));

/** The corpus' words (every published name), for keeping typo'd and prefixed queries apart from real words. */
function vocabulary(items: CorpusItem[]): Set<string> {
  const out = new Set<string>();
  for (const item of items) for (const n of item.names) for (const w of words(n)) out.add(w);
  for (const item of items) if (item.manufacturer) for (const w of words(item.manufacturer)) out.add(w);
  return out;
}

const HEBREW_LETTERS = "אבגדהוזחטיכלמנסעפצקרשת";

/** One edit of a word: a swap of neighbours, a letter dropped, doubled or replaced. */
function typo(word: string, random: () => number): string {
  const i = Math.floor(random() * (word.length - 1));
  switch (Math.floor(random() * 4)) {
    case 0:
      return word[i] === word[i + 1] ? word.slice(0, i) + word.slice(i + 1) : word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    case 1:
      return word.length >= 4 ? word.slice(0, i + 1) + word.slice(i + 2) : word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    case 2:
      return word.slice(0, i + 1) + word[i] + word.slice(i + 1);
    default: {
      const c = HEBREW_LETTERS[Math.floor(random() * HEBREW_LETTERS.length)]!;
      return word.slice(0, i + 1) + c + word.slice(i + 2);
    }
  }
}

/** Unit spellings a shopper may type instead of the name's. */
const REWRITES: [RegExp, string[]][] = [
  [/ק"ג|ק''ג|קג/, ['ק״ג', "קג", "קילו"]],
  [/מ"ל|מ''ל/, ['מ״ל', "מל"]],
  [/גרם/, ["גר'", "ג'", "גר"]],
  [/גר'|ג'/, ["גרם", "גר׳"]],
  [/ליטר/, ["ל'", "ל׳"]],
  [/יח'/, ["יחידות", "יח׳"]],
  [/"/, ["״", "''"]],
  [/'/, ["׳", ""]],
];

/**
 * The judged queries of one corpus, `per` of each generated class (hand-written lists: every
 * entry with a relevant product in the corpus).
 */
export function judgedQueries(corpus: Corpus, per: number, seed = 42): JudgedQuery[] {
  const { items } = corpus;
  const random = rng(seed);
  const out: JudgedQuery[] = [];
  const vocab = vocabulary(items);
  const add = (cls: QueryClass, q: string, relevant: Set<number>) => {
    if (relevant.size > 0 && !out.some((o) => o.q === q && o.cls === cls)) out.push({ q, cls, relevant, corpus: corpus.label });
  };
  const byCanonical = new Map<string, Set<number>>();
  for (const item of items) {
    for (const n of item.names) {
      const key = canonicalWords(n).join(" ");
      const set = byCanonical.get(key) ?? new Set();
      set.add(item.id);
      byCanonical.set(key, set);
    }
  }
  const named = items.filter((i) => headWords(i.name).length >= 1);

  // exact: a served name, or a chain's own (often cut) name for the product.
  for (const item of sample(named, per, random)) {
    const name = item.names.length > 1 && random() < 0.5 ? item.names[1 + Math.floor(random() * (item.names.length - 1))]! : item.name;
    add("exact", name, byCanonical.get(canonicalWords(name).join(" "))!);
  }
  // reordered: the name's words (no sizes) in another order.
  for (const item of sample(named.filter((i) => headWords(i.name).length >= 2), per, random)) {
    const w = typedWords(item.name).slice(0, 4);
    const q = random() < 0.5 ? [...w].reverse() : [...w.slice(1), w[0]!];
    add("reordered", q.join(" "), ids(items, (i) => hasAll(i, q.map(fold))));
  }
  // brand: a manufacturer as published, or a word its products' names share with it.
  const makers = [...new Set(items.map((i) => i.manufacturer).filter((m): m is string => !!m && /^\D/.test(m) && !/לא ידוע|כללי|unknown/i.test(m)))];
  for (const maker of sample(makers, Math.ceil(per / 2), random)) {
    add("brand", maker, ids(items, (i) => i.manufacturer === maker || hasAll(i, words(maker))));
  }
  const brandWords = new Set<string>();
  for (const item of items) if (item.manufacturer) for (const w of words(item.manufacturer)) if (w.length >= 3 && words(item.name).includes(w)) brandWords.add(w);
  for (const w of sample([...brandWords], per - Math.ceil(per / 2), random)) add("brand", w, ids(items, (i) => hasAll(i, [w], true)));
  // category words.
  for (const [q, heads] of CATEGORY) add("category", q, ids(items, (i) => startsWithAny(i, heads.map((h) => words(h)))));
  // size: a name's first words and its size, the unit sometimes left out.
  const sized = items.filter((i) => /\d/.test(i.name) && headWords(i.name).length >= 1);
  for (const item of sample(sized, per, random)) {
    const all = words(item.name);
    const at = all.findIndex((w) => isNumber(w) && w !== "0");
    if (at < 0) continue;
    const head = typedWords(item.name).slice(0, random() < 0.5 ? 1 : 2);
    const number = all[at]!;
    const unit = all[at + 1] && !isNumber(all[at + 1]!) && UNIT[all[at + 1]!] && random() < 0.5 ? ` ${all[at + 1]}` : "";
    add("size", `${head.join(" ")} ${number}${unit}`, ids(items, (i) => hasAll(i, [...head.map(fold), number])));
  }
  // typos: one edit in the longest of a name's first two words (≥3 letters, not a word of the corpus).
  for (const item of sample(named, per * 3, random)) {
    if (out.filter((o) => o.cls === "typo" && o.corpus === corpus.label).length >= per) break;
    const w = typedWords(item.name).slice(0, 2);
    const longest = w.reduce((a, b) => (b.length > a.length ? b : a), "");
    if (longest.length < 3 || !isHebrewWord(fold(longest))) continue;
    const wrong = typo(longest, random);
    if (vocab.has(fold(wrong)) || fold(wrong) === fold(longest)) continue;
    add("typo", w.map((x) => (x === longest ? wrong : x)).join(" "), ids(items, (i) => hasAll(i, w.map(fold))));
  }
  // English and Latin: the hand list, then a product's own Latin words.
  for (const e of ENGLISH) {
    const heads = (e.head ?? []).map((h) => words(h));
    add("english", e.q, ids(items, (i) => (heads.length > 0 ? startsWithAny(i, heads) : hasAll(i, e.has!.map(fold), true))));
  }
  const latin = [...vocab].filter((w) => /^[a-z]{3,}$/.test(w));
  for (const w of sample(latin, Math.ceil(per / 2), random)) add("english", w, ids(items, (i) => hasAll(i, [w])));
  // abbreviations and punctuation: the name with its units or quotes written another way.
  const quoted = items.filter((i) => REWRITES.some(([re]) => re.test(i.name)));
  for (const item of sample(quoted, per, random)) {
    const options = REWRITES.filter(([re]) => re.test(item.name));
    const [re, to] = options[Math.floor(random() * options.length)]!;
    const q = item.name.replace(re, to[Math.floor(random() * to.length)]!);
    add("abbreviation", q, byCanonical.get(canonicalWords(item.name).join(" "))!);
  }
  // plural/singular: the hand list; prefixes: a head word with prefix letters before it.
  for (const [q, heads] of NUMBER_FORMS) add("morphology", q, ids(items, (i) => startsWithAny(i, heads.map((h) => words(h)))));
  const heads = [...new Set(items.map((i) => typedWords(i.name)[0]!).filter((w) => w && w.length >= 3 && isHebrewWord(fold(w))))];
  let made = 0;
  for (const head of sample(heads, per * 3, random)) {
    if (made >= per) break;
    const cluster = CLUSTERS[Math.floor(random() * CLUSTERS.length)]!;
    if (vocab.has(fold(cluster + head))) continue;
    made++;
    add("morphology", cluster + head, ids(items, (i) => wordsOf(i).head[0] === fold(head)));
  }
  // barcode.
  for (const item of sample(items.filter((i) => /^\d{6,}$/.test(i.barcode)), Math.ceil(per / 2), random)) {
    add("barcode", item.barcode, ids(items, (i) => i.barcode === item.barcode));
  }
  return out;
}

// ---------- metrics ----------

export interface Scores {
  queries: number;
  recall: number;
  mrr: number;
}

/** recall@10 (found ÷ min(relevant, 10)) and reciprocal rank of the first relevant answer in the top 10. */
export function scoreOne(answer: number[], relevant: Set<number>): { recall: number; rr: number } {
  const top = answer.slice(0, 10);
  const found = top.filter((id) => relevant.has(id)).length;
  const first = top.findIndex((id) => relevant.has(id));
  return { recall: found / Math.min(relevant.size, 10), rr: first < 0 ? 0 : 1 / (first + 1) };
}

/** Mean recall@10 and MRR per class and overall (key "overall"). */
export function evaluate(queries: JudgedQuery[], answer: (query: JudgedQuery) => number[]): { byClass: Map<string, Scores>; misses: { query: JudgedQuery; recall: number; top: number[] }[] } {
  const sums = new Map<string, { n: number; recall: number; rr: number }>();
  const misses: { query: JudgedQuery; recall: number; top: number[] }[] = [];
  for (const query of queries) {
    const top = answer(query);
    const { recall, rr } = scoreOne(top, query.relevant);
    if (recall < 1) misses.push({ query, recall, top: top.slice(0, 10) });
    for (const key of [query.cls, "overall"]) {
      const s = sums.get(key) ?? { n: 0, recall: 0, rr: 0 };
      s.n++;
      s.recall += recall;
      s.rr += rr;
      sums.set(key, s);
    }
  }
  const byClass = new Map<string, Scores>();
  for (const key of [...CLASSES, "overall"]) {
    const s = sums.get(key);
    if (s) byClass.set(key, { queries: s.n, recall: s.recall / s.n, mrr: s.rr / s.n });
  }
  return { byClass, misses };
}
