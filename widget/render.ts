import { h } from "./dom.ts";
import { agorot, formatPrice, formatUpdated } from "./format.ts";
import { STRINGS, type Strings } from "./strings.ts";
import type { Lang, ViewState, WidgetData, WidgetOptions, WidgetPrice } from "./types.ts";

/** A chain's name in the widget's language (Hebrew when the answer has no English one). */
export function chainName(p: WidgetPrice, lang: Lang): string {
  return (lang === "en" && p.chain_name_en) || p.chain_name;
}

/** Chains cheapest first by effective price, then by the name shown; suspect prices (likely data errors) last. */
export function sortPrices(prices: WidgetPrice[], lang: Lang): WidgetPrice[] {
  return prices
    .slice()
    .sort(
      (a, b) =>
        Number(!!a.suspect) - Number(!!b.suspect) ||
        agorot(a.effective_price_ils) - agorot(b.effective_price_ils) ||
        chainName(a, lang).localeCompare(chainName(b, lang), lang),
    );
}

/** The wrapper every state renders into: direction, language and theme live here. */
export function createWrapper(options: WidgetOptions): HTMLElement {
  return h("div", {
    class: "w " + options.theme,
    dir: options.lang === "he" ? "rtl" : "ltr",
    lang: options.lang,
    "aria-live": "polite",
  });
}

/** Replaces the wrapper's content with a state. */
export function paint(wrapper: HTMLElement, state: ViewState, options: WidgetOptions, base: string): void {
  const t = STRINGS[options.lang];
  wrapper.setAttribute("aria-busy", String(state.kind === "loading"));
  wrapper.setAttribute("data-state", state.kind === "ok" && state.data.prices.length === 0 ? "empty" : state.kind);
  wrapper.textContent = "";
  if (state.kind === "ok" && state.data.prices.length > 0) {
    wrapper.append(...table(state.data, options, t), footer(state.data, options.lang, t, base));
    return;
  }
  const message = {
    loading: t.loading,
    ok: t.empty,
    not_found: t.notFound,
    key: t.key,
    error: t.error,
  }[state.kind];
  wrapper.append(h("p", { class: "st", role: state.kind === "key" || state.kind === "error" ? "alert" : "status" }, message));
}

function table(data: WidgetData, options: WidgetOptions, t: Strings): Node[] {
  const sorted = sortPrices(data.prices, options.lang);
  const first = sorted.find((p) => !p.suspect);
  const best = first ? agorot(first.effective_price_ils) : -1;
  const shown = sorted.slice(0, options.limit);
  const rows = shown.map((p) => row(p, !p.suspect && agorot(p.effective_price_ils) === best, options.lang, t));
  const nodes: Node[] = [
    // A focusable scroll box: keyboard users can scroll a table wider than a narrow page.
    h(
      "div",
      { class: "sc", tabindex: "0", role: "region", "aria-label": data.name },
      h(
        "table",
        null,
        h("caption", null, data.name),
        h(
          "thead",
          null,
          h("tr", null, h("th", { scope: "col" }, t.chain), h("th", { scope: "col" }, t.price), h("th", { scope: "col" }, t.stores)),
        ),
        h("tbody", null, ...rows),
      ),
    ),
  ];
  if (sorted.length > shown.length) nodes.push(h("p", { class: "more" }, t.more(sorted.length - shown.length)));
  return nodes;
}

function row(p: WidgetPrice, cheapest: boolean, lang: Lang, t: Strings): HTMLElement {
  const promo = p.is_on_promotion && agorot(p.effective_price_ils) < agorot(p.price_ils);
  return h(
    "tr",
    cheapest ? { class: "best", "data-chain": p.chain_id } : { "data-chain": p.chain_id },
    h("th", { scope: "row" }, chainName(p, lang), cheapest && h("span", { class: "b bc" }, t.cheapest)),
    h(
      "td",
      { class: "n" },
      h("bdi", { class: "p" }, formatPrice(p.effective_price_ils, lang)),
      p.sold_by === "kg" && h("span", { class: "u" }, " " + t.perKg),
      p.suspect && h("span", { class: "b bs" }, t.suspect),
      promo && h("span", { class: "b bp" }, t.promo),
      promo && h("span", { class: "was" }, h("span", { class: "sr" }, t.regular + " "), h("del", null, h("bdi", null, formatPrice(p.price_ils, lang)))),
      promo && p.lowest_price_30d_ils && h("span", { class: "low" }, t.low30 + " ", h("bdi", null, formatPrice(p.lowest_price_30d_ils, lang))),
    ),
    h("td", { class: "n" }, String(p.store_count)),
  );
}

function footer(data: WidgetData, lang: Lang, t: Strings, base: string): HTMLElement {
  const updated = formatUpdated(data.data_updated_at, lang);
  return h(
    "p",
    { class: "ft" },
    updated && h("span", null, t.updated + " ", h("bdi", null, updated), " · "),
    t.disclaimer + " ",
    h("a", { href: base + "/docs", target: "_blank", rel: "noopener" }, t.docs),
  );
}
