import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

describe("POST /payments", () => {
  it("creates a pending payment, normalized to 7 decimals, with a payment.created event in the outbox", async () => {
    const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "10.5", description: "Coffee" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: "payment_intent",
      amount: "10.5000000",
      status: "pending",
      settlement_asset: { asset_code: "XLM", issuer_address: null },
      allowed_assets: [{ asset_code: "XLM", issuer_address: null }],
      description: "Coffee",
      source_type: "direct",
      checkout_url: `http://pay.example.test/c/${res.body.id}`,
    });
    expect(res.body.id).toMatch(/^pay_[0-9A-Za-z]{16,}$/);
    const expiresInMs = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(expiresInMs).toBe(60 * 60_000);
    const events = await t.database.db.event.findMany({ where: { resourceId: res.body.id } });
    expect(events.map((e) => e.type)).toEqual(["payment.created"]);
    expect(JSON.parse(events[0]!.data)).toMatchObject({ id: res.body.id, amount: "10.5000000", pricing_currency: null });
  });

  it("refuses an amount with 8 decimals, naming the field, and writes nothing", async () => {
    const before = await t.database.db.payment.count();
    const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1.12345678" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "amount must match ^\\d+(\\.\\d{1,7})?$" });
    expect(await t.database.db.payment.count()).toBe(before);
  });
});
