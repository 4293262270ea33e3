import * as z from "zod";
import { defineTool } from "../tool.ts";
import { GET_PRICE_HISTORY } from "../../prices/index.ts";
import { Barcode, ChainId } from "../arguments.ts";
import { count, ils, lines } from "../text.ts";

interface Change {
  chain_id: string;
  chain_name: string;
  price_ils: string;
  date: string;
}

/** Per chain: first and last price of the window, lowest, highest, and how many times it changed. */
function chainTrends(history: Change[]): string[] {
  const byChain = new Map<string, Change[]>();
  for (const record of history) {
    const list = byChain.get(record.chain_id) ?? [];
    list.push(record);
    byChain.set(record.chain_id, list);
  }
  return [...byChain.values()].map((records) => {
    const prices = records.map((r) => Number(r.price_ils));
    const low = records[prices.indexOf(Math.min(...prices))]!;
    const high = records[prices.indexOf(Math.max(...prices))]!;
    const first = records[0]!;
    const last = records.at(-1)!;
    const changes = records.length - 1;
    return `- ${first.chain_name}: ${ils(first.price_ils)} (${first.date}) → ${ils(last.price_ils)} (${last.date}); low ${ils(low.price_ils)}, high ${ils(high.price_ils)}; ${count(changes, "change")}`;
  });
}

export const priceHistory = defineTool({
  name: "price_history",
  title: "Price history / היסטוריית מחירים",
  operation: GET_PRICE_HISTORY,
  description:
    "How a product's price changed at each chain over the last 1–24 months: one record per chain per date on which the chain's price changed, plus the window's first date. " +
    "Use it to tell whether a price is a real bargain or to see price rises. " +
    "היסטוריית מחירים של מוצר בכל רשת (עד 24 חודשים): מתי המחיר השתנה ולכמה. " +
    "{Plan}. Cost: 1 API call.",
  input: z
    .object({
      barcode: Barcode,
      months: z.number().int().min(1).max(24).default(12).describe("Months back (חודשים), 1–24, default 12"),
      chain_id: ChainId.optional().describe("Only this chain"),
    })
    .strict(),
  request: (args) => ({
    method: "GET",
    path: `/api/v1/prices/${args.barcode}/history/`,
    query: { months: args.months, chain_id: args.chain_id },
  }),
  summary: (data: any, meta) => {
    if (data.history.length === 0) return `${data.name} (${data.barcode}): no price records in the last ${meta.months} months.`;
    const head = `${data.name} (${data.barcode}), prices since ${meta.from} (${meta.records} records):`;
    return [head, ...lines(chainTrends(data.history), 40, (line) => line)].join("\n");
  },
});
