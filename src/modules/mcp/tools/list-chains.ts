import * as z from "zod";
import { defineTool } from "../tool.ts";
import { LIST_CHAINS } from "../../chains/index.ts";
import { count } from "../text.ts";

export const listChains = defineTool({
  name: "list_chains",
  title: "Supermarket chains / רשתות השיווק",
  operation: LIST_CHAINS,
  description:
    "Every supermarket chain the service knows (Shufersal, Rami Levy, Yohananof, Victory …): chain_id, Hebrew and English name, number of stores and products, " +
    "when its prices were last updated and whether they are current (`ok`), older than 36 hours (`stale`) or missing (`no_data`). " +
    "רשימת רשתות השיווק: שם, מספר סניפים ומוצרים ועדכניות המחירים. " +
    "{Plan}. Cost: 1 API call.",
  input: z.object({}).strict(),
  request: () => ({ method: "GET", path: "/api/v1/chains/" }),
  summary: (data: any[]) => {
    // Chains with nothing imported are named on one line, not one line each.
    const empty = (c: any) => c.status === "no_data" && c.product_count === 0;
    const withData = data.filter((c) => !empty(c));
    const without = data.filter(empty);
    const head = `${data.length} chains, ${data.filter((c) => c.status === "ok").length} with current prices:`;
    const rows = withData.map(
      (c) => `- ${c.name} (${c.name_en}, chain_id ${c.chain_id}): ${count(c.store_count, "store")}, ${count(c.product_count, "product")}, ${c.status}${c.last_updated_at ? `, updated ${c.last_updated_at}` : ""}`,
    );
    const none = without.length > 0 ? [`No data yet: ${without.map((c) => `${c.name} (${c.chain_id})`).join(", ")}`] : [];
    return [head, ...rows, ...none].join("\n");
  },
});
