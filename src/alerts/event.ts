import type { DataSnapshot } from "../data/data-state.ts";
import { randomBase62 } from "../accounts/key-format.ts";
import { formatIls, toIsraelIso } from "../lib/time.ts";
import type { Alert } from "./alert-store.ts";
import { conditionJson } from "./condition.ts";
import type { Trigger } from "./evaluate.ts";

export const EVENT_TYPE = "price.alert";

export function newEventId(): string {
  return "evt_" + randomBase62(24);
}

const ils = (agorot: number | null) => (agorot === null ? null : formatIls(agorot));

/**
 * The JSON body of a webhook event, serialized once and stored: every attempt sends these exact
 * bytes (the signature covers them). `created` and times are ISO 8601 with the Israel offset, like
 * the API; the signature's `t` is unix seconds.
 */
export function eventBody(input: {
  eventId: string;
  alert: Alert;
  productName: string | null;
  trigger: Trigger;
  snapshot: DataSnapshot;
  created: Date;
  test: boolean;
}): string {
  const { alert, trigger } = input;
  return JSON.stringify({
    id: input.eventId,
    type: EVENT_TYPE,
    created: toIsraelIso(input.created),
    data: {
      alert_id: alert.publicId,
      test: input.test,
      condition: conditionJson(alert.condition),
      product: { barcode: alert.barcode, chain_id: alert.chainId, name: input.productName },
      city: alert.city,
      chains: trigger.chains.map((c) => ({
        chain_id: c.chainId,
        chain_name: c.chainName,
        store_count: c.storeCount,
        price_ils: formatIls(c.shelf),
        old_effective_price_ils: ils(c.oldEffective),
        effective_price_ils: formatIls(c.effective),
      })),
      store_count: trigger.chains.reduce((n, c) => n + c.storeCount, 0),
      old_effective_price_ils: ils(trigger.oldBest),
      new_effective_price_ils: ils(trigger.newBest),
      data_version: input.snapshot.version,
      data_updated_at: input.snapshot.updatedAt,
    },
  });
}
