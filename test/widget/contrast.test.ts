/**
 * Readable contrast (WCAG 2.x AA, 4.5:1 for text) of every text/background pair the widget's
 * stylesheet uses, in the light and the dark theme, computed from the CSS the bundle ships.
 */
import { describe, expect, test } from "bun:test";
import { CSS } from "../../widget/styles.ts";

/** The custom properties a rule of the stylesheet sets: `.w{--bg:#fff;…}` → { bg: "#fff", … }. */
function variables(selector: string): Record<string, string> {
  const start = CSS.indexOf(selector + "{");
  if (start < 0) throw new Error(`no rule ${selector}`);
  const body = CSS.slice(start + selector.length + 1, CSS.indexOf("}", start));
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/--([a-z]{2}):(?:var\([^,]+,)?(#[0-9a-f]{3,6})/gi)) out[m[1]!] = m[2]!;
  return out;
}

function luminance(hex: string): number {
  const full = hex.length === 4 ? "#" + [...hex.slice(1)].map((c) => c + c).join("") : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function ratio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

// [what, text variable, background variable], as the stylesheet pairs them.
const PAIRS: [string, string, string][] = [
  ["body text", "fg", "bg"],
  ["headers, footer, struck-through price", "mu", "bg"],
  ["links and focus ring", "ac", "bg"],
  ["cheapest row", "cf", "cb"],
  ["cheapest badge (.bc)", "bg", "cf"],
  ["promotion badge (.bp)", "pf", "pb"],
];

describe("contrast of the widget's colours", () => {
  const light = variables(".w");
  const dark = { ...light, ...variables(".dark") };
  test("the themes define every colour the pairs use", () => {
    for (const theme of [light, dark]) for (const name of ["fg", "bg", "mu", "ac", "cf", "cb", "pf", "pb"]) expect(theme[name]).toMatch(/^#/);
  });
  for (const [name, theme] of [["light", light], ["dark", dark]] as const) {
    for (const [what, fg, bg] of PAIRS) {
      test(`${name}: ${what} at least 4.5:1`, () => {
        expect(ratio(theme[fg]!, theme[bg]!)).toBeGreaterThanOrEqual(4.5);
      });
    }
  }
  test("the auto theme's dark colours are the dark theme's", () => {
    const auto = /@media \(prefers-color-scheme:dark\)\{\.auto\{([^}]*)\}/.exec(CSS)?.[1];
    expect(auto).toBe(CSS.slice(CSS.indexOf(".dark{") + 6, CSS.indexOf("}", CSS.indexOf(".dark{"))));
  });
});
