/** Shapes shared by the widget's modules (the JSON of GET /api/v1/widget/data/ and the element's options). */

export interface WidgetPrice {
  chain_id: string;
  chain_name: string;
  /** English name (shown with data-lang="en"); absent from older answers. */
  chain_name_en?: string;
  price_ils: string;
  effective_price_ils: string;
  is_on_promotion: boolean;
  /** Lowest shelf price of the last 30 days; absent from older answers. */
  lowest_price_30d_ils?: string | null;
  /** A likely data error: listed last, never marked cheapest; absent from older answers. */
  suspect?: boolean;
  /** Loose produce: per kg or per unit. */
  sold_by?: "kg" | "unit";
  store_count: number;
}

export interface WidgetData {
  barcode: string;
  name: string;
  image_url: string | null;
  prices: WidgetPrice[];
  cheapest_chain_id: string | null;
  data_updated_at: string | null;
}

/** What one data request came to; every failure maps to a state the widget can show. */
/**
 * The outcome of a widget's request. `why`: for the page's developer, the cause of an empty
 * widget in one actionable sentence (the runtime writes it to the console once per cause; the
 * widget itself shows only its quiet message).
 */
export type FetchResult =
  | { kind: "ok"; data: WidgetData }
  | { kind: "not_found"; why?: string }
  | { kind: "key"; why?: string }
  | { kind: "error"; why?: string };

/** A state the widget shows: loading, or the outcome of the request. */
export type ViewState = { kind: "loading" } | FetchResult;

export type Lang = "he" | "en";
export type Theme = "light" | "dark" | "auto";

/** The data-* attributes of one `[data-svc-widget]` element, checked and defaulted. */
export interface WidgetOptions {
  barcode: string;
  /** data-chain-id: the chain of a chain-internal item code (absent or "" when none). */
  chainId?: string;
  key: string;
  limit: number;
  lang: Lang;
  theme: Theme;
}
