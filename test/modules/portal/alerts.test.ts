import { expect, test } from "bun:test";
import { createKey } from "../../../src/accounts/keys.ts";
import { setPlan } from "../../../src/accounts/accounts.ts";
import { call } from "../../helpers/alerts/call.ts";
import { BARCODE, reprice, setup } from "../../helpers/alerts/memory-app.ts";
import { PortalClient } from "../../helpers/portal/client.ts";

test("the portal lists the account's alerts with their state and latest deliveries; other plans see that alerts are Pro", async () => {
  const s = setup();
  const browser = new PortalClient(s.app);
  await browser.signUp("alerts@example.com");
  await browser.get("/portal/");
  expect(browser.lastHtml).toContain('id="alerts"');
  expect(browser.lastHtml).toContain("התראות מחיר (\u2066webhooks\u2069) זמינות בתוכנית המקצועית.");

  const account = setPlan(s.db.accounts, "alerts@example.com", "pro");
  const { key } = createKey(s.db.accounts, { accountId: account.id, kind: "live" }, new Date());
  const id = (await call(s.app, "POST", "/api/v1/alerts/", key, { url: "http://127.0.0.1:9/hook", barcode: BARCODE, city: "חיפה", condition: { below_ils: "12.00" } })).body.data.id;
  await browser.get("/portal/?lang=en");
  expect(browser.lastHtml).toContain(`data-alert-id="${id}" data-status="active"`);
  expect(browser.lastHtml).toContain("below ₪12.00");
  expect(browser.lastHtml).toContain("₪12.90"); // the last evaluation's price
  expect(browser.lastHtml).toContain("No events sent yet.");

  s.state.answer = () => ({ status: 500 });
  reprice(s, s.stores.shufersal, 1150);
  await s.deps.alerts!.evaluator.run();
  await s.deps.alerts!.worker.idle();
  await browser.get("/portal/");
  const eventId = JSON.parse(s.sent[0]!.body).id;
  expect(browser.lastHtml).toContain(`data-event-id="${eventId}" data-status="pending"`);
  expect(browser.lastHtml).toContain("retrying");
  expect(browser.lastHtml).toContain("<td>500</td>");
  // Another account sees none of it.
  const other = new PortalClient(s.app);
  await other.signUp("other@example.com");
  await other.get("/portal/");
  expect(other.lastHtml).not.toContain(id);
});
