import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import * as z from "zod";
import { ChainItem, ChainsResponse } from "./model.ts";
import { listChains } from "./service.ts";
import { servedData } from "../../serving/data-set.ts";
import { livemodeOf } from "../../http/request/livemode.ts";

export const LIST_CHAINS = operation({
  method: "get",
  path: "/api/v1/chains",
  operationId: "listChains",
  audience: "free",
  success: { schema: ChainsResponse },
  errors: [],
  conditional: true,
  summary: "List chains",
  tags: ["chains"],
  description:
    "Every chain in the registry, also those with no data yet (status `no_data`). `status` is `ok` when the chain's newest imported file is under 36 hours old, `stale` when older, `failing` when the last fetch attempts of its portal failed and `blocked` when the portal refused the service's address (a firewall challenge, 403/247, no answer: docs/operations.md \"Egress\"), with `status_reason` saying why (null when `ok`). `active` is false for a chain merged into another (`merged_into`, whose portal carries its files) or retired, with `inactive_reason` and `inactive_since`. `source` says whether the data is the embedded demo or live portal data. The `last_fetch_*` fields and `empty_file_flagged` are the chain's health in live mode: when its portal was last tried and last fetched, how many files the last attempt downloaded, the last error (portal or import), and whether a file of it parsed to zero rows. `product_count` counts products sold in at least one store. {Plan}.",
});

/** GET /api/v1/chains/ — the registry with per-chain figures and freshness. */
export function chainsModule() {
  return new Elysia({ name: "module.chains" }).use(servedData).get(
    LIST_CHAINS.path,
    ({ request, dataSet }) => {
      const data = listChains(dataSet);
      return {
        data,
        meta: {
          count: data.length,
          data_updated_at: dataSet.data.current.updatedAt,
          source: dataSet.data.current.source,
          livemode: livemodeOf(request),
        },
      };
    },
    {
      response: { 200: ChainsResponse },
    },
  );
}

/** The chains list. */
export const chainsFeature: Feature = {
  name: "chains",
  operations: [LIST_CHAINS],
  routes: () => chainsModule(),
};
