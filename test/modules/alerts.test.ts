import { beforeEach, describe, expect, test } from "bun:test";
import { commitData } from "../helpers/app.ts";
import { call } from "../helpers/alerts/call.ts";
import { newKey } from "../helpers/keys.ts";
import { BARCODE, reprice, setup } from "../helpers/alerts/memory-app.ts";
import { MAX_ALERTS_PER_ACCOUNT } from "../../src/modules/alerts/service.ts";
import { verifySignature } from "../../src/alerts/signature.ts";

const URL = "http://127.0.0.1:9/hook";

let s: ReturnType<typeof setup>;
let key = "";
beforeEach(() => {
  s = setup();
  key = newKey(s.deps, "pro", "live", { email: "alerts@example.com" }).key;
});

const create = (body: Record<string, unknown>, k = key) => call(s.app, "POST", "/api/v1/alerts/", k, { url: URL, barcode: BARCODE, condition: { below_ils: "9.90" }, ...body });

describe("access", () => {
  test("a non-Pro key gets 403 plan_upgrade_required; no key 401", async () => {
    for (const plan of ["free", "basic"] as const) {
      const res = await create({}, newKey(s.deps, plan, "live", { email: `${plan}@example.com` }).key);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("plan_upgrade_required");
    }
    expect((await call(s.app, "GET", "/api/v1/alerts/", null)).body.code).toBe("missing_api_key");
  });

  test("another account's alert is 404 alert_not_found, for every operation", async () => {
    const id = (await create({})).body.data.id;
    const other = newKey(s.deps, "pro", "live", { email: "other@example.com" }).key;
    for (const [method, path] of [["GET", ""], ["GET", "deliveries/"], ["POST", "test/"], ["DELETE", ""]]) {
      const res = await call(s.app, method!, `/api/v1/alerts/${id}/${path}`, other);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("alert_not_found");
    }
    expect((await call(s.app, "GET", `/api/v1/alerts/${id}/`, key)).status).toBe(200);
  });
});

describe("create", () => {
  test("201 with the secret once; later reads show only its last 4 characters", async () => {
    const res = await create({ chain_ids: ["rami-levy", "shufersal"], city: "Haifa", condition: { drop_pct: 10 } });
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(a).toMatchObject({ barcode: BARCODE, chain_id: null, chain_ids: ["rami-levy", "shufersal"], city: "חיפה", condition: { drop_pct: 10 }, status: "active" });
    expect(a.secret).toMatch(/^whsec_/);
    expect(a.secret_last4).toBe(a.secret.slice(-4));
    // Haifa has only the Shufersal store: its price is the baseline.
    expect(a.last_evaluation).toEqual({ data_version: 1, effective_price_ils: "12.90", condition_met: false });
    const read = await call(s.app, "GET", `/api/v1/alerts/${a.id}/`, key);
    expect(read.body.data.secret).toBeUndefined();
    expect(read.body.data).toEqual(Object.fromEntries(Object.entries(a).filter(([k]) => k !== "secret")));
    expect(read.headers.get("cache-control")).toBe("no-store");
    expect(read.headers.get("etag")).toBeNull();
  });

  test.each([
    [{ url: "not a url" }, "url"],
    [{ url: "ftp://127.0.0.1/x" }, "url"],
    [{ url: "https://10.0.0.8/hook" }, "url"],
    [{ url: "https://169.254.169.254/latest/meta-data" }, "url"],
    [{ url: "https://[::ffff:192.168.1.1]/hook" }, "url"],
    [{ url: "https://user:pw@127.0.0.1/hook" }, "url"],
    [{ barcode: "7290000000000" }, "barcode"],
    [{ barcode: "abc" }, "barcode"],
    [{ condition: {} }, "condition"],
    [{ condition: { below_ils: "9.90", drop_pct: 5 } }, "condition"],
    [{ condition: { drop_pct: 0 } }, "condition.drop_pct"],
    [{ condition: { below_ils: "abc" } }, "condition.below_ils"],
    [{ condition: { promotion: false } }, "condition.promotion"],
    [{ condition: { price_ils: "1.00" } }, "condition.price_ils"],
    [{ chain_ids: ["rami-levy", "no-such-chain"] }, "chain_ids[1]"],
    [{ chain_id: "no-such-chain" }, "chain_id"],
    [{ city: "עיר שאין בה סניף" }, "city"],
    [{ extra: 1 }, "extra"],
  ])("bad input %j → 400 invalid_parameter naming %s", async (body, param) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_parameter", param });
    expect((await call(s.app, "GET", "/api/v1/alerts/", key)).body.data).toEqual([]);
  });

  test("products resolve as everywhere: a chain-internal code names its chain's item; a code several chains use is 400 ambiguous_product", async () => {
    const shufersalItem = s.fx.product("4087", "עגבניות שופרסל", { scopeChain: "shufersal" });
    const ramiItem = s.fx.product("4087", "עגבניות רמי לוי", { scopeChain: "rami-levy" });
    s.fx.price(s.stores.shufersal, shufersalItem, 690);
    s.fx.price(s.stores.rami, ramiItem, 590);
    commitData(s.deps);
    const ambiguous = await create({ barcode: "4087" });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.code).toBe("ambiguous_product");
    expect(ambiguous.body.candidates.map((c: { chain_id: string }) => c.chain_id).sort()).toEqual(["rami-levy", "shufersal"]);
    const pinned = await create({ barcode: "4087", chain_id: "rami-levy", condition: { below_ils: "5.50" } });
    expect(pinned.status).toBe(201);
    expect(pinned.body.data).toMatchObject({ barcode: "4087", chain_id: "rami-levy", chain_ids: ["rami-levy"], last_evaluation: { effective_price_ils: "5.90" } });
    // Shufersal's item of the same digits at 5.00 is another product: no event.
    s.db.prices.run("UPDATE price_current SET price = 500 WHERE product_id = ?", [shufersalItem]);
    commitData(s.deps);
    await s.deps.alerts!.evaluator.run();
    expect(s.sent).toHaveLength(0);
    s.db.prices.run("UPDATE price_current SET price = 500 WHERE product_id = ?", [ramiItem]);
    commitData(s.deps);
    await s.deps.alerts!.evaluator.run();
    await s.deps.alerts!.worker.idle();
    expect(JSON.parse(s.sent[0]!.body).data).toMatchObject({ product: { barcode: "4087", chain_id: "rami-levy", name: "עגבניות רמי לוי" }, new_effective_price_ils: "5.00" });
  });

  test("without MEHIR_WEBHOOK_ALLOW_LOOPBACK, loopback and http are refused, also by name after DNS resolution", async () => {
    s = setup({ allowLoopback: false });
    key = newKey(s.deps, "pro", "live", { email: "alerts@example.com" }).key;
    for (const url of ["http://127.0.0.1:9/hook", "https://127.0.0.1/hook", "https://[::1]/hook", "https://localhost/hook"]) {
      const res = await create({ url });
      expect(res.status).toBe(400);
      expect(res.body.param).toBe("url");
    }
    expect((await create({ url: "https://localhost/hook" })).body.detail).toContain("resolves to 127.0.0.1");
  });

  test("with MEHIR_WEBHOOK_ALLOW_LOOPBACK: http to a public address, IPv4-compatible IPv6 and port 0 are still refused", async () => {
    for (const url of ["http://93.184.216.34/hook", "https://[::127.0.0.1]/hook", "https://[::7f00:1]/hook", "https://93.184.216.34:0/hook"]) {
      const res = await create({ url });
      expect(res.status, url).toBe(400);
      expect(res.body.param).toBe("url");
    }
    expect((await create({ url: "http://127.0.0.1:9/hook" })).status).toBe(201);
  });

  test(`at most ${MAX_ALERTS_PER_ACCOUNT} alerts per account: then 409 alert_limit_reached`, async () => {
    for (let i = 0; i < MAX_ALERTS_PER_ACCOUNT; i++) expect((await create({})).status).toBe(201);
    const over = await create({});
    expect(over.status).toBe(409);
    expect(over.body.code).toBe("alert_limit_reached");
    // Another account is not affected.
    expect((await create({}, newKey(s.deps, "pro", "live", { email: "second@example.com" }).key)).status).toBe(201);
  });

  test("413 for a body over 8 KiB, 415 for a body that is not JSON", async () => {
    expect((await create({ url: URL + "?" + "x".repeat(9000) })).status).toBe(413);
    const res = await s.app.handle(new Request("http://localhost/api/v1/alerts/", { method: "POST", headers: { "x-api-key": key, "content-type": "text/plain" }, body: "{}" }));
    expect(res.status).toBe(415);
  });
});

describe("list, delete", () => {
  test("newest first, paginated with a cursor; delete removes the alert and its log", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({})).body.data.id);
    const page1 = await call(s.app, "GET", "/api/v1/alerts/?limit=2", key);
    expect(page1.body.data.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[3]]);
    const page2 = await call(s.app, "GET", `/api/v1/alerts/?limit=2&cursor=${page1.body.meta.next_cursor}`, key);
    expect(page2.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    const page3 = await call(s.app, "GET", `/api/v1/alerts/?limit=2&cursor=${page2.body.meta.next_cursor}`, key);
    expect(page3.body.data.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect(page3.body.meta.next_cursor).toBeNull();
    expect((await call(s.app, "GET", `/api/v1/alerts/?cursor=${page1.body.meta.next_cursor}`, key)).body.code).toBe("invalid_cursor");

    const deleted = await call(s.app, "DELETE", `/api/v1/alerts/${ids[0]}/`, key);
    expect(deleted.body.data).toEqual({ id: ids[0], deleted: true });
    expect((await call(s.app, "GET", `/api/v1/alerts/${ids[0]}/`, key)).status).toBe(404);
    expect((await call(s.app, "DELETE", `/api/v1/alerts/${ids[0]}/`, key)).status).toBe(404);
    expect((await call(s.app, "GET", "/api/v1/alerts/bad-id/", key)).body).toMatchObject({ code: "invalid_parameter", param: "id" });
  });
});

describe("evaluation and delivery", () => {
  test("below_ils fires once when it becomes true, not while it stays true, again after it was false", async () => {
    const id = (await create({ condition: { below_ils: "11.00" } })).body.data.id;
    reprice(s, s.stores.rami, 1090); // rami-levy: stores at 10.90 and 11.90 → mode tie → 10.90
    await s.deps.alerts!.evaluator.run();
    await s.deps.alerts!.worker.idle();
    expect(s.sent).toHaveLength(1);
    const event = JSON.parse(s.sent[0]!.body);
    expect(event.data).toMatchObject({ old_effective_price_ils: "11.90", new_effective_price_ils: "10.90", store_count: 2, data_version: 2 });
    expect(event.data.chains.map((c: { chain_id: string }) => c.chain_id)).toEqual(["rami-levy"]);
    reprice(s, s.stores.rami, 1080);
    await s.deps.alerts!.evaluator.run();
    reprice(s, s.stores.rami, 1190);
    await s.deps.alerts!.evaluator.run();
    expect(s.sent).toHaveLength(1);
    reprice(s, s.stores.rami, 1000);
    await s.deps.alerts!.evaluator.run();
    await s.deps.alerts!.worker.idle();
    expect(s.sent).toHaveLength(2);
    expect((await call(s.app, "GET", `/api/v1/alerts/${id}/`, key)).body.data.last_evaluation).toEqual({ data_version: 5, effective_price_ils: "10.00", condition_met: true });
  });

  test("drop_pct compares with the previous data version's effective price; chain_ids narrow the chains", async () => {
    await create({ condition: { drop_pct: 10 }, chain_ids: ["shufersal"] });
    reprice(s, s.stores.rami, 500); // another chain: not watched
    await s.deps.alerts!.evaluator.run();
    reprice(s, s.stores.shufersal, 1170); // −9.3 %: not enough
    await s.deps.alerts!.evaluator.run();
    expect(s.sent).toHaveLength(0);
    reprice(s, s.stores.shufersal, 1050); // −10.3 % since the previous version
    await s.deps.alerts!.evaluator.run();
    await s.deps.alerts!.worker.idle();
    expect(s.sent).toHaveLength(1);
    expect(JSON.parse(s.sent[0]!.body).data).toMatchObject({ old_effective_price_ils: "11.70", new_effective_price_ils: "10.50", chains: [{ chain_id: "shufersal", store_count: 1 }] });
  });

  test("promotion fires when a promotion open to all starts lowering a chain's effective price (club-only ones do not)", async () => {
    await create({ condition: { promotion: true } });
    s.fx.promotion("shufersal", "club", { stores: [s.stores.shufersal], items: [s.product], minQty: 1, discountedPrice: 900, clubOnly: true });
    commitData(s.deps);
    await s.deps.alerts!.evaluator.run();
    expect(s.sent).toHaveLength(0);
    s.fx.promotion("shufersal", "all", { stores: [s.stores.shufersal], items: [s.product], minQty: 1, discountedPrice: 1000 });
    commitData(s.deps);
    await s.deps.alerts!.evaluator.run();
    await s.deps.alerts!.worker.idle();
    expect(s.sent).toHaveLength(1);
    expect(JSON.parse(s.sent[0]!.body).data.chains).toEqual([
      expect.objectContaining({ chain_id: "shufersal", price_ils: "12.90", old_effective_price_ils: "12.90", effective_price_ils: "10.00" }),
    ]);
    commitData(s.deps); // still on promotion: nothing new
    await s.deps.alerts!.evaluator.run();
    expect(s.sent).toHaveLength(1);
  });

  test("test events: signed, logged, attempted once; the answer is the outcome", async () => {
    const created = (await create({})).body.data;
    const ok = await call(s.app, "POST", `/api/v1/alerts/${created.id}/test/`, key);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ test: true, status: "succeeded", attempts: 1, last_response_code: 200 });
    expect(verifySignature(s.sent[0]!.headers["mehir-signature"]!, created.secret, s.sent[0]!.body, Math.floor(s.timers.now() / 1000))).toBe(true);
    expect(s.sent[0]!.headers["mehir-event-id"]).toBe(ok.body.data.event_id);
    expect(JSON.parse(s.sent[0]!.body).data).toMatchObject({ test: true, new_effective_price_ils: "11.90" });

    s.state.answer = () => ({ error: "connection refused" });
    const failed = await call(s.app, "POST", `/api/v1/alerts/${created.id}/test/`, key);
    expect(failed.body.data).toMatchObject({ status: "failed", attempts: 1, last_error: "connection refused", next_retry_at: null });
    const log = await call(s.app, "GET", `/api/v1/alerts/${created.id}/deliveries/`, key);
    expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(["failed", "succeeded"]);
  });

  test("a delivery failing for 24 h is failed; an endpoint failing for 3 days is disabled, and a successful test enables it", async () => {
    const id = (await create({ condition: { drop_pct: 5 } })).body.data.id;
    s.state.answer = () => ({ status: 503 });
    const drop = async (agorot: number) => {
      reprice(s, s.stores.rami, agorot);
      reprice(s, s.stores.rami2, agorot);
      await s.deps.alerts!.evaluator.run();
      await s.deps.alerts!.worker.idle();
    };
    const firstFailure = s.timers.now();
    await drop(1000);
    // Retries over the day: about 10 s, 30 s, 2 min, 8 min, …, then the delivery is failed.
    // Time moves timer by timer, each attempt finishing before the next (as on a real clock).
    const end = s.timers.now() + 25 * 3600_000;
    for (let next = s.timers.nextDue(); next !== null && next <= end; next = s.timers.nextDue()) {
      s.timers.advance(next - s.timers.now());
      await s.deps.alerts!.worker.idle();
    }
    let log = (await call(s.app, "GET", `/api/v1/alerts/${id}/deliveries/`, key)).body.data;
    expect(log[0].status).toBe("failed");
    expect(log[0].attempts).toBeGreaterThanOrEqual(10);
    const times = s.sent.map((x) => Number(/t=(\d+)/.exec(x.headers["mehir-signature"]!)![1]));
    expect(times.slice(1, 5).map((t, i) => t - times[i]!)).toEqual([10, 30, 120, 480]);
    expect((await call(s.app, "GET", `/api/v1/alerts/${id}/`, key)).body.data.status).toBe("active");

    // Three days after the first failure another event fails: the endpoint has failed for 3 days → disabled.
    s.timers.advance(firstFailure + 3 * 24 * 3600_000 - s.timers.now());
    await drop(900);
    const alert = (await call(s.app, "GET", `/api/v1/alerts/${id}/`, key)).body.data;
    expect(alert.status).toBe("disabled");
    expect(alert.disabled_reason).toContain("3 days");
    log = (await call(s.app, "GET", `/api/v1/alerts/${id}/deliveries/`, key)).body.data;
    expect(log[0]).toMatchObject({ status: "failed", last_error: "endpoint disabled" });
    // Disabled: not evaluated, nothing sent.
    const before = s.sent.length;
    await drop(800);
    expect(s.sent.length).toBe(before);

    s.state.answer = () => ({ status: 204 });
    expect((await call(s.app, "POST", `/api/v1/alerts/${id}/test/`, key)).body.data.status).toBe("succeeded");
    expect((await call(s.app, "GET", `/api/v1/alerts/${id}/`, key)).body.data).toMatchObject({ status: "active", disabled_reason: null });
  });
});
