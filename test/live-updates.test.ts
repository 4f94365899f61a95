// Live updates over graphql-sse at /graphql/stream, read frame by frame without a browser.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import { completePayment } from "../src/modules/payments/payment-completion.ts";
import { type SseSubscription, subscribeSse } from "./support/sse.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
const open: SseSubscription[] = [];

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
});
afterAll(async () => {
  open.forEach((s) => s.close());
  await t.close();
});

const CHECKOUT = `subscription ($id: ID!) { checkout(id: $id) {
  id kind state paymentId merchantName description amount amountReceived expiresAt sandbox network successUrl cancelUrl failureReason
  settlementAsset { assetCode issuerAddress } allowedAssets { assetCode issuerAddress }
  instructions { destination muxedDestination memoType memo networkPassphrase sep7Uri }
  receipt { txHash confirmedAt explorerUrl paidAsset { assetCode } }
  invoice { number status dueAt items { description quantity unitAmount amount } } } }`;

async function subscribe(query: string, variables: Record<string, unknown>, key?: string) {
  const sub = await subscribeSse(t.url, query, variables, key ? { authorization: `Bearer ${key}` } : {});
  open.push(sub);
  return sub;
}

async function createCustomer() {
  const res = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { email: "payer@example.com", name: "Secret Payer" } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function createPayment(body: Record<string, unknown> = {}) {
  const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "12.5", description: "Two coffees", ...body } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const complete = (id: string, txHash = "a".repeat(64)) => completePayment(t.deps, { id }, { txHash });

describe("public checkout subscription", () => {
  it("sends the current state first, then the completion, with no private field on the wire", async () => {
    const customerId = await createCustomer();
    const id = await createPayment({ metadata: { order_ref: "private-order-7731" }, customer_id: customerId });
    const sub = await subscribe(CHECKOUT, { id });
    expect(sub.status).toBe(200);

    const first = (await sub.next()).data.checkout;
    expect(first).toMatchObject({
      id,
      kind: "payment",
      state: "open",
      paymentId: id,
      merchantName: "Test Merchant",
      description: "Two coffees",
      amount: "12.5000000",
      sandbox: true,
      network: "testnet",
      settlementAsset: { assetCode: "XLM", issuerAddress: null },
      receipt: null,
    });
    expect(first.instructions.destination).toBe(merchant.wallet.publicKey());
    expect(first.instructions.sep7Uri).toMatch(/^web\+stellar:pay\?destination=G/);

    await complete(id);
    const paid = (await sub.next()).data.checkout;
    expect(paid.state).toBe("paid");
    expect(paid.instructions).toBeNull();
    expect(paid.receipt).toMatchObject({
      txHash: "a".repeat(64),
      explorerUrl: `https://stellar.expert/explorer/testnet/tx/${"a".repeat(64)}`,
    });

    const wire = sub.frames.map((f) => f.raw).join("\n");
    expect(wire).not.toContain("private-order-7731");
    expect(wire).not.toContain(customerId);
    expect(wire).not.toContain("Secret Payer");
    expect(wire).not.toContain("metadata");
  });

  it("gives a subscriber that (re)connects after completion the final state at once", async () => {
    const id = await createPayment();
    const before = await subscribe(CHECKOUT, { id });
    expect((await before.next()).data.checkout.state).toBe("open");
    before.close();

    await complete(id, "b".repeat(64));
    const again = await subscribe(CHECKOUT, { id });
    const state = (await again.next()).data.checkout;
    expect(state).toMatchObject({ state: "paid", receipt: { txHash: "b".repeat(64) } });
  });

  it("follows a checkout session through its payment and carries its redirect URLs", async () => {
    const res = await t.api("POST", "/checkout-sessions", {
      key: merchant.sandboxKey,
      body: { amount: "3", success_url: "https://shop.example/thanks", cancel_url: "https://shop.example/cart" },
    });
    expect(res.status).toBe(201);
    const sub = await subscribe(CHECKOUT, { id: res.body.id });
    const first = (await sub.next()).data.checkout;
    expect(first).toMatchObject({
      kind: "checkout_session",
      state: "open",
      paymentId: res.body.payment_intent_id,
      successUrl: "https://shop.example/thanks",
      cancelUrl: "https://shop.example/cart",
    });
    await complete(res.body.payment_intent_id);
    expect((await sub.next()).data.checkout.state).toBe("paid");
  });

  it("gives pages watching the same checkout with different selections each their own fields", async () => {
    const id = await createPayment();
    const narrow = await subscribe(`subscription ($id: ID!) { checkout(id: $id) { state } }`, { id });
    const wide = await subscribe(`subscription ($id: ID!) { checkout(id: $id) { state amount } }`, { id });
    expect((await narrow.next()).data.checkout).toEqual({ state: "open" });
    expect((await wide.next()).data.checkout).toEqual({ state: "open", amount: "12.5000000" });
    await complete(id);
    expect((await narrow.next()).data.checkout).toEqual({ state: "paid" });
    expect((await wide.next()).data.checkout).toEqual({ state: "paid", amount: "12.5000000" });
  });

  it("answers an unknown id with Not found", async () => {
    const sub = await subscribe(CHECKOUT, { id: "pay_0000000000000000" });
    const result = await sub.next();
    expect(result.errors[0]).toMatchObject({ message: "Not found", extensions: { code: "NOT_FOUND" } });
  });

  it("has no private field to ask for", async () => {
    const sub = await subscribe(`subscription ($id: ID!) { checkout(id: $id) { id metadata customerId } }`, { id: "pay_x" });
    const frame = await sub.next().catch(() => null);
    const errors = frame?.errors ?? JSON.parse(sub.frames[0]?.raw ?? "{}").errors;
    expect(errors.map((e: { message: string }) => e.message).join(" ")).toMatch(/Cannot query field "metadata"/);
  });
});

describe("public checkout query", () => {
  it("shows an invoice's line items once finalized, and draft before", async () => {
    const created = await t.api("POST", "/invoices", {
      key: merchant.sandboxKey,
      body: { description: "Consulting", items: [{ description: "Hour", quantity: "3", unit_amount: "40" }] },
    });
    expect(created.status).toBe(201);
    const query = `query ($id: ID!) { checkout(id: $id) { state kind amount invoice { number items { description quantity unitAmount amount } } } }`;
    const draft = await t.graphql(query, { id: created.body.id });
    expect(draft.body.data.checkout).toMatchObject({ state: "draft", kind: "invoice", amount: "120.0000000" });

    expect((await t.api("POST", `/invoices/${created.body.id}/finalize`, { key: merchant.sandboxKey })).status).toBe(200);
    const finalized = await t.graphql(query, { id: created.body.id });
    expect(finalized.body.data.checkout).toMatchObject({
      state: "open",
      invoice: { items: [{ description: "Hour", quantity: "3", unitAmount: "40.0000000", amount: "120.0000000" }] },
    });
  });

  it("shows a payment past its expiry as expired", async () => {
    const id = await createPayment({ expires_in_minutes: 5 });
    t.clock.advance(6 * 60_000);
    const res = await t.graphql(`query ($id: ID!) { checkout(id: $id) { state instructions { memo } } }`, { id });
    expect(res.body.data.checkout).toEqual({ state: "expired", instructions: null });
  });
});

describe("dashboard subscription", () => {
  const EVENTS = `subscription ($after: Int) { paymentEvents(after: $after) { seq type payment { id status metadata } } }`;

  it("needs an API key", async () => {
    const sub = await subscribe(EVENTS, {});
    expect((await sub.next()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  it("streams its own organization's payment changes only, and replays from a seq on reconnect", async () => {
    const other = await t.createMerchant();
    const sub = await subscribe(EVENTS, {}, merchant.sandboxKey);
    await t.api("POST", "/payments", { key: other.sandboxKey, body: { amount: "1" } });
    const id = await createPayment({ metadata: { order: "42" } });
    const created = (await sub.next()).data.paymentEvents;
    expect(created).toMatchObject({ type: "payment.created", payment: { id, metadata: { order: "42" } } });

    sub.close();
    await complete(id);
    const resumed = await subscribe(EVENTS, { after: created.seq }, merchant.sandboxKey);
    const missed = (await resumed.next()).data.paymentEvents;
    expect(missed).toMatchObject({ type: "payment.completed", payment: { id, status: "completed" } });
    expect(missed.seq).toBeGreaterThan(created.seq);
  });

  describe("finding 4: revocation ends streams", () => {
    /** The key's display prefix, as the admin CLI's revoke-key takes it. */
    const prefixOf = (key: string) => key.slice(0, "pk_test_".length + 8);

    it("finding 4: a revoked key's open paymentEvents stream closes at once and delivers nothing more", async () => {
      const revoking = await createApiKey(t.deps, { organizationId: merchant.organizationId, environment: "sandbox" });
      const sub = await subscribe(EVENTS, {}, revoking);
      const before = await createPayment({ metadata: { order: "1" } });
      expect((await sub.next()).data.paymentEvents).toMatchObject({ type: "payment.created", payment: { id: before } });

      await revokeApiKey(t.deps, { prefix: prefixOf(revoking) });
      // Events committed after the revocation, by the organization's other key.
      const after = await createPayment({ metadata: { order: "2" } });
      await complete(before, randomBytes(32).toString("hex"));
      const revokedAt = Date.now();
      const last = await sub.next(3000);
      expect(last).toEqual({ data: null, errors: [expect.objectContaining({ message: "Unauthorized", extensions: { code: "UNAUTHENTICATED" } })] });
      // The stream then ends, within about a second.
      await expect(sub.next(3000)).rejects.toThrow(/ended|complete/);
      expect(Date.now() - revokedAt).toBeLessThan(2000);
      const delivered = sub.frames.filter((f) => f.event === "next" && f.data.data).map((f) => f.data.data.paymentEvents.payment.id);
      expect(delivered).toEqual([before]);
      expect(JSON.stringify(sub.frames)).not.toContain(after);
    });

    it("issue 30: revoking while payments are made and completed, 15 times: nothing committed after the revocation is delivered", async () => {
      const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      for (let round = 0; round < 15; round++) {
        const revoking = await createApiKey(t.deps, { organizationId: merchant.organizationId, environment: "sandbox" });
        const sub = await subscribe(EVENTS, {}, revoking);
        // The organization's other key writes all along: payments made, then completed.
        let writing = true;
        const writer = (async () => {
          while (writing) {
            const id = await createPayment();
            await complete(id, randomBytes(32).toString("hex"));
          }
        })();
        await delay(20 + round * 7);
        await revokeApiKey(t.deps, { prefix: prefixOf(revoking) });
        // What was committed by the time the revocation had: anything else came after it.
        const [events, completed] = await Promise.all([
          t.database.db.event.findMany({ where: { organizationId: merchant.organizationId }, select: { seq: true } }),
          t.database.db.payment.findMany({ where: { organizationId: merchant.organizationId, status: "completed" }, select: { id: true } }),
        ]);
        const committedSeqs = new Set(events.map((e) => e.seq));
        const completedIds = new Set(completed.map((p) => p.id));
        // The stream ends with UNAUTHENTICATED while the writer goes on.
        let last: any;
        for (;;) {
          const frame = await sub.next(3000).catch(() => null);
          if (!frame) break;
          last = frame;
        }
        writing = false;
        await writer;
        expect(last?.errors?.[0]?.extensions?.code, `round ${round}`).toBe("UNAUTHENTICATED");
        for (const frame of sub.frames.filter((f) => f.event === "next" && f.data.data)) {
          const { seq, payment } = frame.data.data.paymentEvents;
          expect(committedSeqs.has(seq), `round ${round}: event ${seq} came after the revocation`).toBe(true);
          // The payment as delivered: a completion after the revocation is not shown either.
          if (payment.status === "completed") expect(completedIds.has(payment.id), `round ${round}: ${payment.id}`).toBe(true);
        }
      }
    }, 120_000);

    it("finding 4: an idle stream of a revoked key ends within about a second, and its key opens no new one", async () => {
      const revoking = await createApiKey(t.deps, { organizationId: merchant.organizationId, environment: "sandbox" });
      const sub = await subscribe(EVENTS, {}, revoking);
      await createPayment();
      await sub.next();
      await revokeApiKey(t.deps, { prefix: prefixOf(revoking) });
      const revokedAt = Date.now();
      expect((await sub.next(3000)).errors[0].extensions.code).toBe("UNAUTHENTICATED");
      expect(Date.now() - revokedAt).toBeLessThan(2000);
      const again = await subscribe(EVENTS, {}, revoking);
      expect((await again.next()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    });
  });
});
