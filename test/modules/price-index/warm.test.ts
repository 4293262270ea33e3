import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testApp, commitData } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { openDataDir } from "../../../src/db/open.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { fullPriceIndex, priceIndexAnswerKey, priceIndexScopeKey } from "../../../src/modules/price-index/service.ts";
import { priceIndexAnswer } from "../../../src/modules/price-index/off-thread.ts";
import { warmPriceIndex } from "../../../src/modules/price-index/warm.ts";

// A file-backed data dir (the warm-up computes in the worker); no request asks for the index.
const dir = mkdtempSync(join(tmpdir(), "mehir-price-index-warm-"));
const ctx = testApp({ db: openDataDir(dir) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);

beforeAll(() => {
  const products = [f.product("7290000000011", "מוצר 1"), f.product("7290000000028", "מוצר 2")];
  for (const [slug, factor] of [["shufersal", 1], ["rami-levy", 0.8], ["victory", 1.1]] as const) {
    const store = f.store(slug, "1");
    products.forEach((p, i) => {
      const price = Math.round((i + 1) * 500 * factor);
      f.price(store, p, price);
      f.history(store, p, "2026-10-01T08:00:00+03:00", price);
    });
  }
  refreshChainProducts(ctx.db.prices);
});

afterAll(() => {
  ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

test("after a new data version the national index is computed and cached, with and without history, without a request", async () => {
  const live = ctx.deps.dataSets.live;
  const warm = warmPriceIndex(live, "normal");
  await warm.settled();
  // No data yet: nothing computed.
  expect(live.answers.priceIndexFull.held(live)(priceIndexScopeKey({}, false))).toBeUndefined();
  commitData(ctx.deps);
  await warm.settled();
  const heldAnswer = live.answers.priceIndex.held(live);
  for (const months of [undefined, 24]) expect(heldAnswer(priceIndexAnswerKey({}, months))).toBeDefined();
  const full = live.answers.priceIndexFull.held(live);
  expect(full(priceIndexScopeKey({}, true))!.value).toEqual(fullPriceIndex(live, {}, true));
  expect(full(priceIndexScopeKey({}, false))!.value).toEqual(fullPriceIndex(live, {}, false));
  // A client now is answered at once, any `months` a slice of the computed history.
  for (const months of [undefined, 3, 24]) {
    const answer = priceIndexAnswer(live, {}, months);
    expect(Bun.peek.status(answer)).toBe("fulfilled");
  }
  // The next version is computed again.
  commitData(ctx.deps, "2026-11-22T06:00:00+02:00");
  expect(live.answers.priceIndex.held(live)(priceIndexAnswerKey({}, undefined))).toBeUndefined();
  await warm.settled();
  expect(live.answers.priceIndex.held(live)(priceIndexAnswerKey({}, undefined))!.snapshot.version).toBe(live.data.current.version);
}, 60_000);
