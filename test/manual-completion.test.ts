import { describe, expect, it } from "vitest";
import { directSql } from "../src/db/client.ts";
import type { BatchStep } from "../src/db/direct-sql.ts";
import { appendCompletions, completePayment, expirePayment, loadCompletionRelations } from "../src/modules/payments/payment-completion.ts";
import { expectCompletionSnapshots } from "./ledger/completion-events.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const createPayment = async () => (await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "5" } })).body;
const complete = (id: string, body?: Record<string, unknown>, key = merchant.sandboxKey) =>
  t.api("POST", `/payments/${id}/complete`, { key, ...(body && { body }) });
const eventTypes = async (resourceId: string) =>
  (await t.database.db.event.findMany({ where: { resourceId }, orderBy: { seq: "asc" } })).map((e) => e.type);

describe("POST /payments/{id}/complete", () => {
  it("pending -> completed without a body: confirmed_at set, tx_hash null, payment.completed in the outbox", async () => {
    const payment = await createPayment();
    const res = await complete(payment.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: payment.id, status: "completed", tx_hash: null, late: false });
    expect(Date.parse(res.body.confirmed_at)).not.toBeNaN();
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.completed"]);
    const event = await t.database.db.event.findFirstOrThrow({ where: { resourceId: payment.id, type: "payment.completed" } });
    expect(JSON.parse(event.data)).toMatchObject({ id: payment.id, status: "completed" });
    expect((await t.api("GET", `/payments/${payment.id}`, { key: merchant.sandboxKey })).body.status).toBe("completed");
  });

  it("carries the completion to an open invoice and its checkout session, each event a snapshot of its row", async () => {
    const body = { items: [{ description: "Design", quantity: "2", unit_amount: "1.5" }, { description: "Review", quantity: "1", unit_amount: "2" }] };
    const invoice = (await t.api("POST", "/invoices", { key: merchant.sandboxKey, body })).body;
    const { payment_intent_id: paymentId, checkout_session_id: sessionId } = (
      await t.api("POST", `/invoices/${invoice.id}/finalize`, { key: merchant.sandboxKey })
    ).body.invoice;
    const res = await complete(paymentId, { tx_hash: "ef".repeat(32) });
    expect(res.status).toBe(200);
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.completed"]);
    expect(await eventTypes(sessionId)).toEqual(["checkout.session.completed"]);
    expect(await eventTypes(invoice.id)).toEqual(["invoice.finalized", "invoice.paid"]);
    await expectCompletionSnapshots(t, paymentId);
    const paid = (await t.api("GET", `/invoices/${invoice.id}`, { key: merchant.sandboxKey })).body;
    expect(paid).toMatchObject({ status: "paid", paid_at: res.body.confirmed_at });
    expect(paid.items.map((i: { description: string }) => i.description)).toEqual(["Design", "Review"]);
  });

  it("records tx_hash and payer_address when given", async () => {
    const payment = await createPayment();
    const txHash = "ab".repeat(32);
    const res = await complete(payment.id, { tx_hash: txHash, payer_address: merchant.wallet.publicKey() });
    expect(res.body).toMatchObject({ tx_hash: txHash, payer_address: merchant.wallet.publicKey() });
  });

  it("refuses a malformed tx_hash with 400 and leaves the payment pending", async () => {
    const payment = await createPayment();
    const res = await complete(payment.id, { tx_hash: "xyz" });
    expect(res).toMatchObject({ status: 400, body: { error: "tx_hash must be a Stellar transaction hash (64 lowercase hex digits)" } });
    expect((await t.api("GET", `/payments/${payment.id}`, { key: merchant.sandboxKey })).body.status).toBe("pending");
  });

  it("refuses completed, expired and failed payments with 409", async () => {
    const completed = await createPayment();
    await complete(completed.id);
    expect(await complete(completed.id)).toMatchObject({ status: 409, body: { error: "Payment is not pending" } });

    const expired = await createPayment();
    await t.database.db.$transaction((tx) => expirePayment(tx, t.deps, expired));
    expect((await complete(expired.id)).status).toBe(409);

    const failed = await createPayment();
    await t.database.db.payment.update({ where: { id: failed.id }, data: { status: "failed" } });
    expect((await complete(failed.id)).status).toBe(409);
    expect(await eventTypes(completed.id)).toEqual(["payment.created", "payment.completed"]);
  });

  it("lets exactly one of ten concurrent completions win", async () => {
    const payment = await createPayment();
    const results = await Promise.all(Array.from({ length: 10 }, () => complete(payment.id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.completed"]);
  });

  it("answers 404 for unknown ids and payments of another environment", async () => {
    const payment = await createPayment();
    expect((await complete("pay_unknown000000000000000")).status).toBe(404);
    expect(await complete(payment.id, undefined, merchant.liveKey)).toMatchObject({ status: 404, body: { error: "Not found" } });
  });
});

describe("completePayment / expirePayment (for the ledger and the expiry sweeper)", () => {
  it("completes an expired payment only when read as expired, marks it late and completes its expired session", async () => {
    const session = (await t.api("POST", "/checkout-sessions", { key: merchant.sandboxKey, body: { amount: "4" } })).body;
    const payment = { id: session.payment_intent_id };
    await t.database.db.$transaction((tx) => expirePayment(tx, t.deps, payment));
    expect((await t.api("GET", `/checkout-sessions/${session.id}`, { key: merchant.sandboxKey })).body.status).toBe("expired");

    await expect(completePayment(t.deps, payment)).rejects.toThrow("Payment is not pending");
    const xlm = { code: "XLM", issuer: null };
    const completed = await completePayment(t.deps, payment, { from: "expired", txHash: "cd".repeat(32), paidAsset: xlm, received: 40_000_000n });
    expect(completed).toMatchObject({ status: "completed", late: true, txHash: "cd".repeat(32), amountReceived: 40_000_000n });
    const res = await t.api("GET", `/checkout-sessions/${session.id}`, { key: merchant.sandboxKey });
    expect(res.body).toMatchObject({ status: "complete", payment_status: "completed", paid_asset: { asset_code: "XLM" } });
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.expired", "payment.completed"]);
    expect(await eventTypes(session.id)).toEqual(["checkout.session.expired", "checkout.session.completed"]);
    await expectCompletionSnapshots(t, payment.id);
  });

  it("completes the expired payment of a voided invoice late; the invoice stays void", async () => {
    const invoice = (await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { amount: "3" } })).body;
    const { payment_intent_id: paymentId } = (await t.api("POST", `/invoices/${invoice.id}/finalize`, { key: merchant.sandboxKey })).body.invoice;
    expect((await t.api("POST", `/invoices/${invoice.id}/void`, { key: merchant.sandboxKey })).status).toBe(200);
    const completed = await completePayment(t.deps, { id: paymentId }, { from: "expired", received: 30_000_000n });
    expect(completed).toMatchObject({ status: "completed", late: true, amountReceived: 30_000_000n });
    expect((await t.api("GET", `/invoices/${invoice.id}`, { key: merchant.sandboxKey })).body).toMatchObject({ status: "void", paid_at: null });
    expect(await eventTypes(invoice.id)).toEqual(["invoice.finalized", "invoice.voided"]);
    await expectCompletionSnapshots(t, paymentId);
  });

  it("completes only from the status the payment was read in, and never from completed", async () => {
    const payment = await createPayment();
    await expect(completePayment(t.deps, payment, { from: "expired" })).rejects.toThrow("Payment is not pending");
    await expect(completePayment(t.deps, payment, { from: "completed" })).rejects.toThrow("Payment is not pending");
    const completed = await completePayment(t.deps, payment, { from: "pending" });
    expect(completed).toMatchObject({ status: "completed", late: false });
  });

  it("refuses to expire a payment that is not pending", async () => {
    const payment = await createPayment();
    await complete(payment.id);
    await expect(t.database.db.$transaction((tx) => expirePayment(tx, t.deps, payment))).rejects.toThrow("Payment is not pending");
  });

  describe("a set of completions in one batch (the ledger's)", () => {
    const openInvoicePayment = async () => {
      const invoice = (await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { amount: "3" } })).body;
      return (await t.api("POST", `/invoices/${invoice.id}/finalize`, { key: merchant.sandboxKey })).body.invoice;
    };
    /** Completes the payments as the verifier does, with relations read now, after `meanwhile` ran. */
    async function completeTogether(ids: string[], meanwhile: () => Promise<unknown>) {
      const relations = await loadCompletionRelations(t.database.db, ids);
      await meanwhile();
      const steps: BatchStep[] = [];
      const completed = appendCompletions(
        steps,
        t.deps,
        ids.map((id) => ({ paymentId: id, relations: relations.get(id)!, details: { received: 50_000_000n } })),
      );
      return completed(await directSql(t.database.db).batch(steps));
    }
    const statuses = async (ids: string[]) =>
      (await t.database.db.payment.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } })).map((p) => p.status);
    const completedEvents = (ids: string[]) => t.database.db.event.count({ where: { resourceId: { in: ids }, type: "payment.completed" } });

    it("completes them all, each with its own amount, in the order given", async () => {
      const [a, b] = [await createPayment(), await createPayment()];
      const invoice = await openInvoicePayment();
      const ids = [b.id, invoice.payment_intent_id, a.id];
      const completed = await completeTogether(ids, async () => {});
      expect(completed.map((p) => [p.id, p.status, p.amountReceived])).toEqual(ids.map((id) => [id, "completed", 50_000_000n]));
      for (const id of ids) await expectCompletionSnapshots(t, id);
    });

    it("changes nothing when one payment moved after it was read: 409, no payment completed, no event", async () => {
      const [a, b, c] = [await createPayment(), await createPayment(), await createPayment()];
      const ids = [a.id, b.id, c.id];
      await expect(completeTogether(ids, () => complete(b.id))).rejects.toThrow("Payment is not pending");
      expect(await statuses([a.id, c.id])).toEqual(["pending", "pending"]);
      expect(await completedEvents([a.id, c.id])).toBe(0);
    });

    it("changes nothing when an invoice or a session moved after it was read", async () => {
      const a = await createPayment();
      const invoice = await openInvoicePayment();
      const ids = [a.id, invoice.payment_intent_id];
      const paidMeanwhile = () => t.database.db.invoice.update({ where: { id: invoice.id }, data: { status: "paid" } });
      await expect(completeTogether(ids, paidMeanwhile)).rejects.toThrow("Payment changed while it was being completed");
      expect(await statuses(ids)).toEqual(["pending", "pending"]);
      expect(await completedEvents(ids)).toBe(0);

      const other = await openInvoicePayment();
      const completedMeanwhile = () => t.database.db.checkoutSession.update({ where: { id: other.checkout_session_id }, data: { status: "complete" } });
      await expect(completeTogether([a.id, other.payment_intent_id], completedMeanwhile)).rejects.toThrow("Payment changed while it was being completed");
      expect(await statuses([a.id, other.payment_intent_id])).toEqual(["pending", "pending"]);
    });
  });
});
