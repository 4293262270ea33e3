import * as z from "zod";
import citiesJson from "../../data/cities.json" with { type: "json" };

/**
 * Region slugs of the API's `region` filter: the CBS districts (מחוזות), with the Central
 * district split by CBS natural region into `sharon` (West, East and South Sharon: Netanya,
 * Kfar Saba, Ra'anana, Hod HaSharon, Tayibe…), `center` (the Petah Tikva, Modi'in and Ramla
 * areas) and `shfela` (the Rehovot and Rishon LeZion areas). Herzliya and Ramat HaSharon are
 * in the Tel Aviv district, Kiryat Tiv'on in Haifa's, Eilat in `south`.
 */
export const REGIONS = ["jerusalem", "tel-aviv", "center", "sharon", "haifa", "north", "south", "shfela", "judea-samaria"] as const;
export type Region = (typeof REGIONS)[number];

export const CitySchema = z.object({
  /** CBS locality code (סמל יישוב), as some files publish it in `City`; absent for a named area that is no CBS locality (גוש עציון). */
  code: z.number().int().positive().optional(),
  /** Canonical Hebrew name, the one stored in `stores.city`. */
  name: z.string().min(1),
  name_en: z.string().min(1),
  region: z.enum(REGIONS),
  /** Other spellings seen in files (Hebrew or English). */
  aliases: z.array(z.string().min(1)).optional(),
});
export type City = z.infer<typeof CitySchema>;

export interface CityIndex {
  cities: City[];
  byCode: Map<number, City>;
  /** Spelling key (see cityKey) → city. */
  byKey: Map<string, City>;
}

const NIQQUD = /[\u0591-\u05C7]/g;
// Direction marks, zero-width characters and BOMs that copy-pasted text carries.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;
// Quotes, gershayim, geresh and apostrophe variants; hyphen, maqaf and dash variants; spaces and punctuation.
const IGNORED = /["'`\u05F3\u05F4\u2018\u2019\u201C\u201D\u00B4\-\u05BE\u2010-\u2015\s.,()_/\\]+/g;
// "עלית" is the defective spelling of the word "עילית" (נצרת עלית, מודיעין עלית).
const ILLIT = /(^|[\s\-\u05BE])עלית(?=$|[\s\-\u05BE])/g;

/**
 * The spelling-tolerant key of a locality name: no niqqud, quotes, hyphens, spaces or invisible
 * marks, doubled yod/vav collapsed (קריית = קרית), "עלית" read as "עילית", lowercase Latin.
 * @example cityKey("תל-אביב יפו") === cityKey("תל אביב - יפו") // true
 */
export function cityKey(raw: string): string {
  return raw
    .normalize("NFC")
    .replace(NIQQUD, "")
    .replace(INVISIBLE, "")
    .replace(ILLIT, "$1עילית")
    .toLowerCase()
    .replace(IGNORED, "")
    .replace(/יי/g, "י")
    .replace(/וו/g, "ו");
}

/** Indexes a list of cities; throws when two cities claim the same code or spelling. */
export function buildCityIndex(input: unknown): CityIndex {
  const cities = z.array(CitySchema).parse(input);
  const byCode = new Map<number, City>();
  const byKey = new Map<string, City>();
  const claim = (spelling: string, city: City) => {
    const key = cityKey(spelling);
    if (!key) return;
    const other = byKey.get(key);
    if (other && other !== city) throw new Error(`cities: "${spelling}" names both ${other.code ?? other.name} and ${city.code ?? city.name}`);
    byKey.set(key, city);
  };
  for (const city of cities) {
    if (city.code === undefined) continue;
    if (byCode.has(city.code)) throw new Error(`cities: duplicate code ${city.code}`);
    byCode.set(city.code, city);
  }
  // Canonical names first so an alias can never shadow another city's own name.
  for (const city of cities) {
    claim(city.name, city);
    claim(city.name_en, city);
  }
  for (const city of cities) for (const alias of city.aliases ?? []) claim(alias, city);
  return { cities, byCode, byKey };
}

let cached: CityIndex | undefined;

/** The localities embedded in the binary (data/cities.json). */
export function loadCities(): CityIndex {
  cached ??= buildCityIndex(citiesJson);
  return cached;
}

// Values files put in `City` that mean "no city".
const JUNK = new Set(["", "unknown", "לא ידוע", "{}", "0", "-", "null", "none", "n/a"]);

// Words files put around a locality's name: its kind, "near", a junction, interchange, mall or
// outlet named after it, a compass part. Only tried when the whole text names no locality.
const LEADING_WORD = /^(?:קיבוץ|קבוץ|מושב|ליד|צומת|מחלף|קניון|אאוטלט)[\s\-\u05BE]+/;
const TRAILING_WORD = /[\s\-\u05BE]+(?:צפון|דרום|מזרח|מערב)$/;
// "ק. אתא", "ק' ביאליק": the abbreviated קרית.
const KIRYAT_ABBREVIATION = /^ק\s*['\u05F3\u2019.]\s*/;

function byName(text: string, index: CityIndex): City | undefined {
  const exact = index.byKey.get(cityKey(text));
  if (exact) return exact;
  let bare = text.replace(KIRYAT_ABBREVIATION, "קרית ");
  for (let before = ""; before !== bare; ) {
    before = bare;
    bare = bare.replace(LEADING_WORD, "").replace(TRAILING_WORD, "");
  }
  return bare && bare !== text ? index.byKey.get(cityKey(bare)) : undefined;
}

/**
 * Finds a locality by Hebrew or English spelling or CBS code; undefined when unknown. A text
 * that names no locality as a whole is retried without the words files put around a name
 * (`קיבוץ מגל`, `צומת קרית אתא`, `כפר סבא צפון`, `ק. אתא`) and, when it holds commas, by its
 * parts (`מתחם מול כינרת,צמח`) if exactly one locality is named.
 * @example findCity("ליד קיבוץ מגל")?.name // "מגל"
 */
export function findCity(raw: string | null | undefined, index: CityIndex = loadCities()): City | undefined {
  if (raw == null) return undefined;
  const text = raw.replace(INVISIBLE, "").trim();
  if (/^\d+$/.test(text)) return index.byCode.get(Number(text));
  const whole = byName(text, index);
  if (whole || !text.includes(",")) return whole;
  const named = new Set(text.split(",").map((part) => byName(part.trim(), index)).filter((c) => c !== undefined));
  return named.size === 1 ? [...named][0] : undefined;
}

/**
 * Resolves a store's published `City` value — a Hebrew name in any common spelling, a CBS
 * locality code, or an English name — to the canonical Hebrew name and its region. Unknown
 * values come back trimmed with a null region; empty and placeholder values (`unknown`, `0`,
 * `{}`, `לא ידוע`) become null.
 *
 * @example resolveCity("5000")      // { city: "תל אביב-יפו", region: "tel-aviv" }
 * @example resolveCity('ת"א-יפו')   // { city: "תל אביב-יפו", region: "tel-aviv" }
 * @example resolveCity("כפר נידח")  // { city: "כפר נידח", region: null }
 */
export function resolveCity(raw: string | null, index: CityIndex = loadCities()): { city: string | null; region: string | null } {
  if (raw == null) return { city: null, region: null };
  const text = raw.replace(INVISIBLE, "").trim().replace(/\s+/g, " ");
  if (JUNK.has(text.toLowerCase())) return { city: null, region: null };
  const city = findCity(text, index);
  if (city) return { city: city.name, region: city.region };
  return { city: text, region: null };
}

/**
 * The stored city name a `city` filter means: the canonical Hebrew name for any spelling,
 * code or English name resolveCity knows, else the text as given (trimmed, spaces collapsed),
 * so that unknown localities still match the name stored for them.
 *
 * @example cityFilterName("תל אביב")      // "תל אביב-יפו"
 * @example cityFilterName(" כביש  6 ")     // "כביש 6"
 */
export function cityFilterName(raw: string, index: CityIndex = loadCities()): string {
  const text = raw.replace(INVISIBLE, "").trim().replace(/\s+/g, " ");
  return findCity(text, index)?.name ?? text;
}

const EILAT_CODE = 2600;

/**
 * True for Eilat (a VAT-free zone), in any spelling or as its CBS code.
 * @example isEilat("אילת") // true
 */
export function isEilat(city: string | null | undefined): boolean {
  return findCity(city)?.code === EILAT_CODE;
}
