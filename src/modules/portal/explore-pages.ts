import { escapeHtml as e } from "../../http/encoding/html.ts";
import type { Plan } from "../../accounts/plans.ts";
import { fill, strings, type Lang, type PortalStrings } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { lineChart, type Series } from "./line-chart.ts";
import { text } from "./text.ts";

/**
 * The product explorer's pages (/portal/explore): a search, a product's prices by chain and by
 * store, its price history and the chains' price index as server-rendered charts. The data comes
 * from the services as the API's answers do (explore.ts); this file only draws it.
 */

/** A search result as the explorer lists it (the API's search item fields it uses). */
export interface ExploreItem {
  barcode: string;
  chain_id: string | null;
  name: string;
  manufacturer: string | null;
  unit_qty: string | null;
  chain_count: number;
  min_price_ils: string | null;
}

/** A chain's price of the product (the API's chain entry fields it uses). */
export interface ChainPrice {
  chain_id: string;
  chain_name: string;
  price_ils: string;
  effective_price_ils: string;
  min_price_ils: string;
  max_price_ils: string;
  store_count: number;
  is_on_promotion: boolean;
}

/** A store's price of the product (the API's store entry fields it uses). */
export interface StorePrice {
  chain_id: string;
  chain_name: string;
  store: { store_id: string; branch_name: string; city: string | null };
  price_ils: string;
  effective_price_ils: string;
  is_on_promotion: boolean;
}

interface Common {
  lang: Lang;
  csrf: string;
  email: string;
  plan: Plan;
  /** Israel date of today: charts run to it. */
  today: string;
}

export interface ExploreView extends Common {
  q: string;
  results?: { total: number; items: ExploreItem[] };
  error?: string;
  /** The chains' index with its daily history (Basic and up); null when the plan does not include it. */
  index: { entries: { chain_id: string; chain_name: string; index: number | null; rank: number | null; coverage: number; history?: { date: string; index: number | null }[] }[]; from: string } | null;
}

export interface ProductView extends Common {
  product: { barcode: string; chainId: string | null; name: string; manufacturer: string | null; unit_qty: string | null };
  chains: ChainPrice[];
  stores: { shown: StorePrice[]; total: number; chain: string | null };
  /** The chain prices' history (Basic and up); null when the plan does not include it. */
  history: { records: { chain_id: string; chain_name: string; price_ils: string; date: string }[]; from: string } | null;
}

/** How many chains the history chart draws: the cheapest today (more lines cannot be told apart). */
export const HISTORY_CHAINS = 6;

const money = (value: number) => value.toFixed(2);

function productLink(item: { barcode: string; chain_id: string | null }, extra = ""): string {
  const chain = item.chain_id ? `&chain_id=${encodeURIComponent(item.chain_id)}` : "";
  return `/portal/explore/product?barcode=${encodeURIComponent(item.barcode)}${chain}${extra}`;
}

function searchForm(t: PortalStrings, q: string): string {
  return `<form method="get" action="/portal/explore" class="search" role="search">
<label for="q">${text(t.searchLabel)}</label>
<div class="inline"><input id="q" name="q" type="search" maxlength="100" required value="${e(q)}"><button class="btn" type="submit">${text(t.searchButton)}</button></div>
</form>`;
}

const needsBasic = (v: Common, t: PortalStrings) => `<p class="hint" id="needs-basic">${text(fill(t.needsBasic, { email: v.email }))}</p>`;

function indexSection(v: ExploreView, t: PortalStrings): string {
  if (!v.index) return `<section class="card" id="price-index"><h2>${text(t.indexTitle)}</h2>${needsBasic(v, t)}</section>`;
  const ranked = v.index.entries;
  const series: Series[] = ranked
    .filter((c) => c.index !== null)
    .map((c) => ({ label: `${c.chain_name} (${c.index})`, points: (c.history ?? []).map((p) => ({ date: p.date, value: p.index })) }));
  const chart = lineChart(series, { id: "index-chart", label: fill(t.indexLabel, { from: v.index.from }), until: v.today, format: (x) => x.toFixed(0) });
  const rows = ranked
    .map((c) => `<tr><td>${c.rank ?? "–"}</td><td><bdi>${e(c.chain_name)}</bdi></td><td>${c.index ?? "–"}</td><td>${Math.round(c.coverage * 100)}%</td></tr>`)
    .join("");
  return `<section class="card" id="price-index"><h2>${text(t.indexTitle)}</h2>
<p class="hint">${text(t.indexHint)}</p>
${chart}
<table class="data"><thead><tr><th>${text(t.rank)}</th><th>${text(t.chain)}</th><th>${text(t.index)}</th><th>${text(t.coverage)}</th></tr></thead><tbody>${rows}</tbody></table>
</section>`;
}

export function explorePage(v: ExploreView): string {
  const t = strings(v.lang);
  let results = "";
  if (v.error) results = `<div class="error" role="alert">${text(v.error)}</div>`;
  else if (v.results && v.results.items.length === 0) results = `<p class="muted" id="results">${text(t.noResults)}</p>`;
  else if (v.results) {
    const items = v.results.items
      .map(
        (i) => `<li><a href="${e(productLink(i))}"><bdi>${e(i.name)}</bdi></a>
<div class="hint">${[i.manufacturer, i.unit_qty].filter(Boolean).map((x) => `<bdi>${e(x!)}</bdi>`).join(" · ")}${i.manufacturer || i.unit_qty ? " · " : ""}<code>${e(i.barcode)}</code> · ${text(fill(t.chainCount, { count: i.chain_count }))}${i.min_price_ils ? ` · ${text(fill(t.fromPrice, { price: i.min_price_ils }))}` : ""}</div></li>`,
      )
      .join("");
    results = `<p class="hint">${text(fill(t.resultsCount, { total: v.results.total }))}</p><ul class="results" id="results">${items}</ul>`;
  }
  const body = `<h1>${text(t.explore)}</h1>
<p class="hint">${text(t.exploreIntro)}</p>
<section class="card" id="search">${searchForm(t, v.q)}${results}</section>
${indexSection(v, t)}`;
  return renderPage({ lang: v.lang, title: t.explore, body, path: v.q ? `/portal/explore?q=${encodeURIComponent(v.q)}` : "/portal/explore", csrf: v.csrf });
}

function priceCell(t: PortalStrings, p: { price_ils: string; effective_price_ils: string; is_on_promotion: boolean }): string {
  if (!p.is_on_promotion) return e(p.effective_price_ils);
  return `${e(p.effective_price_ils)} <s class="hint">${e(p.price_ils)}</s> <span class="badge">${text(t.promotion)}</span>`;
}

function historySection(v: ProductView, t: PortalStrings): string {
  if (!v.history) return `<section class="card" id="history"><h2>${text(t.historyTitle)}</h2>${needsBasic(v, t)}</section>`;
  const cheapest = v.chains.slice(0, HISTORY_CHAINS);
  const series: Series[] = cheapest.map((c) => ({
    label: c.chain_name,
    points: v.history!.records.filter((r) => r.chain_id === c.chain_id).map((r) => ({ date: r.date, value: Number(r.price_ils) })),
  }));
  const chart = lineChart(series, { id: "history-chart", label: fill(t.historyLabel, { name: v.product.name, from: v.history.from }), until: v.today, format: money });
  return `<section class="card" id="history"><h2>${text(t.historyTitle)}</h2>
<p class="hint">${text(fill(t.historyHint, { count: cheapest.length }))}</p>
${chart}
</section>`;
}

export function productPage(v: ProductView): string {
  const t = strings(v.lang);
  const p = v.product;
  const self = productLink({ barcode: p.barcode, chain_id: p.chainId });
  const chainRows = v.chains
    .map(
      (c) => `<tr data-chain="${e(c.chain_id)}"><td><a href="${e(`${self}&stores=${encodeURIComponent(c.chain_id)}#stores`)}"><bdi>${e(c.chain_name)}</bdi></a></td>
<td data-label="${e(t.priceIls)}">${priceCell(t, c)}</td><td data-label="${e(t.rangeIls)}">${e(c.min_price_ils)}–${e(c.max_price_ils)}</td><td data-label="${e(t.stores)}">${c.store_count}</td></tr>`,
    )
    .join("");
  const options = [`<option value="">${e(t.allChains)}</option>`, ...v.chains.map((c) => `<option value="${e(c.chain_id)}"${c.chain_id === v.stores.chain ? " selected" : ""}>${e(c.chain_name)}</option>`)].join("");
  const storeRows = v.stores.shown
    .map(
      (s) => `<tr><td><bdi>${e(s.chain_name)}</bdi> · <bdi>${e(s.store.branch_name || s.store.store_id)}</bdi></td><td data-label="${e(t.city)}"><bdi>${e(s.store.city ?? "–")}</bdi></td><td data-label="${e(t.priceIls)}">${priceCell(t, s)}</td></tr>`,
    )
    .join("");
  const body = `<p><a href="/portal/explore">${text(t.backToSearch)}</a></p>
<h1><bdi>${e(p.name)}</bdi></h1>
<p class="hint">${text(t.barcode)}: <code id="barcode">${e(p.barcode)}</code>${p.manufacturer ? ` · <bdi>${e(p.manufacturer)}</bdi>` : ""}${p.unit_qty ? ` · <bdi>${e(p.unit_qty)}</bdi>` : ""}</p>
<section class="card" id="chains"><h2>${text(t.pricesByChain)}</h2>
<table class="data stacked"><thead><tr><th>${text(t.chain)}</th><th>${text(t.priceIls)}</th><th>${text(t.rangeIls)}</th><th>${text(t.stores)}</th></tr></thead><tbody>${chainRows}</tbody></table>
</section>
${historySection(v, t)}
<section class="card" id="stores"><h2>${text(t.pricesByStore)}</h2>
<form method="get" action="/portal/explore/product#stores" class="inline">
<input type="hidden" name="barcode" value="${e(p.barcode)}">${p.chainId ? `<input type="hidden" name="chain_id" value="${e(p.chainId)}">` : ""}
<label for="stores-chain" class="sr-only">${text(t.chain)}</label><select id="stores-chain" name="stores">${options}</select>
<button class="btn small" type="submit">${text(t.show)}</button>
</form>
<p class="hint">${text(fill(t.storesShown, { shown: v.stores.shown.length, total: v.stores.total }))}</p>
<table class="data stacked"><thead><tr><th>${text(t.store)}</th><th>${text(t.city)}</th><th>${text(t.priceIls)}</th></tr></thead><tbody>${storeRows}</tbody></table>
</section>`;
  return renderPage({ lang: v.lang, title: p.name, body, path: `${self}${v.stores.chain ? `&stores=${encodeURIComponent(v.stores.chain)}` : ""}`, csrf: v.csrf });
}
