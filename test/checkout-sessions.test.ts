import { describe, expect, it } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const createSession = (body: Record<string, unknown>, key = merchant.sandboxKey) =>
  t.api("POST", "/checkout-sessions", { key, body });

describe("POST /checkout-sessions", () => {
  it("creates an open session with its own pending payment (source_type checkout_session)", async () => {
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { email: "a@example.com" } });
    const res = await createSession({
      amount: "25",
      success_url: "https://shop.example/thanks",
      cancel_url: "http://shop.example/cart",
      customer_id: customer.body.id,
      metadata: { order: "42" },
      expires_in_minutes: 30,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: "checkout.session",
      status: "open",
      checkout_url: `http://pay.example.test/c/${res.body.id}`,
      amount: "25.0000000",
      settlement_asset: { asset_code: "XLM", issuer_address: null },
      allowed_assets: [{ asset_code: "XLM", issuer_address: null }],
      paid_asset: null,
      payment_status: "pending",
      customer_id: customer.body.id,
      success_url: "https://shop.example/thanks",
      cancel_url: "http://shop.example/cart",
      metadata: { order: "42" },
    });
    expect(res.body.id).toMatch(/^cs_[0-9A-Za-z]{16,}$/);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(30 * 60_000);

    const payment = await t.api("GET", `/payments/${res.body.payment_intent_id}`, { key: merchant.sandboxKey });
    expect(payment.body).toMatchObject({
      status: "pending",
      source_type: "checkout_session",
      amount: "25.0000000",
      customer_id: customer.body.id,
      expires_at: res.body.expires_at,
    });
  });

  it("reads one session back with GET /checkout-sessions/{id}", async () => {
    const created = await createSession({ amount: "1" });
    const res = await t.api("GET", `/checkout-sessions/${created.body.id}`, { key: merchant.sandboxKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it.each([
    ["success_url", "ftp://shop.example/x", "success_url must be an http(s) URL"],
    ["cancel_url", "not a url", "cancel_url must be an http(s) URL"],
    ["amount", "1.12345678", "amount must match ^\\d+(\\.\\d{1,7})?$"],
    ["amount", "0", "amount must be greater than 0"],
    ["expires_in_minutes", 4, "expires_in_minutes must be at least 5"],
  ])("refuses an invalid %s with 400 naming it", async (field, value, message) => {
    const res = await createSession({ amount: "5", [field]: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message });
  });

  it("refuses a missing amount and an unknown customer with 400", async () => {
    expect((await createSession({})).body).toEqual({ error: "amount is required" });
    const res = await createSession({ amount: "1", customer_id: "cus_doesnotexist000000" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "customer_id does not name a customer" });
  });

  it("refuses with 400 when no settlement wallet is configured", async () => {
    const bare = await t.createMerchant({ wallet: false });
    const res = await createSession({ amount: "1" }, bare.sandboxKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Settlement wallet is not configured" });
  });

  it("answers 401 without a key", async () => {
    const res = await t.api("POST", "/checkout-sessions", { body: { amount: "1" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized" });
  });
});

describe("GET /checkout-sessions/{id}", () => {
  it("answers 404 for unknown ids and for sessions of the other environment or organization", async () => {
    const sandbox = await createSession({ amount: "1" });
    const other = await t.createMerchant();
    for (const [id, key] of [
      ["cs_doesnotexist0000000000", merchant.sandboxKey],
      [sandbox.body.id, merchant.liveKey],
      [sandbox.body.id, other.sandboxKey],
    ]) {
      const res = await t.api("GET", `/checkout-sessions/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found" });
    }
  });
});

describe("checkout session states", () => {
  it("open -> complete when its payment is completed; payment_status mirrors it", async () => {
    const session = await createSession({ amount: "3" });
    const done = await t.api("POST", `/payments/${session.body.payment_intent_id}/complete`, { key: merchant.sandboxKey });
    expect(done.status).toBe(200);
    const res = await t.api("GET", `/checkout-sessions/${session.body.id}`, { key: merchant.sandboxKey });
    expect(res.body).toMatchObject({ status: "complete", payment_status: "completed" });
    const events = await t.database.db.event.findMany({ where: { resourceId: session.body.id } });
    expect(events.map((e) => e.type)).toEqual(["checkout.session.completed"]);
    expect(JSON.parse(events[0]!.data)).toMatchObject({ id: session.body.id, status: "complete", payment_status: "completed" });
  });
});
