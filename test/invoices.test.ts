import { describe, expect, it } from "vitest";
import { finalizeInvoice } from "../src/modules/invoices/invoices.service.ts";
import { drawingMemoIds } from "./support/memo-ids.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const createInvoice = (body: Record<string, unknown>, key = merchant.sandboxKey) => t.api("POST", "/invoices", { key, body });
const action = (id: string, name: "finalize" | "void", key = merchant.sandboxKey) =>
  t.api("POST", `/invoices/${id}/${name}`, { key });
const eventTypes = async (resourceId: string) =>
  (await t.database.db.event.findMany({ where: { resourceId }, orderBy: { seq: "asc" } })).map((e) => e.type);

const INVOICE_FIELDS = [
  "id", "object", "invoice_number", "status", "amount", "created_at", "updated_at", "settlement_asset",
  "allowed_assets", "description", "metadata", "customer_id", "checkout_session_id", "checkout_url",
  "hosted_invoice_url", "items", "due_at", "paid_at", "sent_at",
];

describe("POST /invoices", () => {
  it("creates a draft with every Invoice field present (null when unset) and due_at 30 days out", async () => {
    const res = await createInvoice({ amount: "120.5", description: "Consulting" });
    expect(res.status).toBe(201);
    for (const field of INVOICE_FIELDS) expect(res.body).toHaveProperty(field);
    expect(res.body).toMatchObject({
      object: "invoice",
      status: "draft",
      amount: "120.5000000",
      description: "Consulting",
      settlement_asset: null,
      allowed_assets: null,
      checkout_session_id: null,
      checkout_url: null,
      hosted_invoice_url: `http://pay.example.test/i/${res.body.id}`,
      items: [],
      paid_at: null,
      sent_at: null,
      metadata: null,
      customer_id: null,
    });
    expect(res.body.id).toMatch(/^inv_[0-9A-Za-z]{16,}$/);
    expect(res.body.invoice_number).toMatch(/^INV-\d{6}$/);
    expect(Date.parse(res.body.due_at) - Date.parse(res.body.created_at)).toBe(30 * 24 * 60 * 60_000);
    expect(await eventTypes(res.body.id)).toEqual([]);
  });

  it("takes due_in_days, a customer, metadata and items whose total is the amount", async () => {
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Ada" } });
    const res = await createInvoice({
      amount: "25.5",
      customer_id: customer.body.id,
      metadata: { po: "7" },
      due_in_days: 7,
      items: [
        { description: "Widget", quantity: "3", unit_amount: "7.5" },
        { description: "Shipping", quantity: "1", unit_amount: "3" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      customer_id: customer.body.id,
      metadata: { po: "7" },
      items: [
        { description: "Widget", quantity: "3", unit_amount: "7.5000000" },
        { description: "Shipping", quantity: "1", unit_amount: "3.0000000" },
      ],
    });
    expect(Date.parse(res.body.due_at) - Date.parse(res.body.created_at)).toBe(7 * 24 * 60 * 60_000);
  });

  it("computes the amount from items when amount is left out", async () => {
    const res = await createInvoice({ items: [{ description: "Hour", quantity: "4", unit_amount: "0.0000001" }] });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe("0.0000004");
  });

  it.each([
    [{ amount: "10", items: [{ description: "A", quantity: "2", unit_amount: "4" }] }, "amount must equal the sum of items quantity x unit_amount"],
    [{}, "amount is required"],
    [{ amount: "1", due_in_days: 0 }, "due_in_days must be at least 1"],
    [{ amount: "1", due_in_days: 366 }, "due_in_days must be at most 365"],
    [{ amount: "1", description: "x".repeat(501) }, "description must be at most 500 characters"],
    [{ amount: "1", items: [{ description: "A", quantity: "0", unit_amount: "1" }] }, "items[0].quantity must be a whole number from 1 to 999999999, as a string"],
    [{ amount: "1", customer_id: "cus_unknown0000000000000" }, "customer_id does not name a customer"],
    [{ amount: "1", currency: "USD" }, "currency is not a recognized field"],
  ])("refuses %j with 400", async (body, message) => {
    const res = await createInvoice(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message });
  });

  it("refuses with 400 when no settlement wallet is configured", async () => {
    const bare = await t.createMerchant({ wallet: false });
    const res = await createInvoice({ amount: "1" }, bare.sandboxKey);
    expect(res).toMatchObject({ status: 400, body: { error: "Settlement wallet is not configured" } });
  });
});

describe("invoice numbers", () => {
  it("are sequential per organization and environment, starting at INV-000001", async () => {
    const m = await t.createMerchant();
    const a = await createInvoice({ amount: "1" }, m.sandboxKey);
    const b = await createInvoice({ amount: "1" }, m.sandboxKey);
    const live = await createInvoice({ amount: "1" }, m.liveKey);
    const other = await t.createMerchant();
    const c = await createInvoice({ amount: "1" }, other.sandboxKey);
    expect([a.body.invoice_number, b.body.invoice_number, live.body.invoice_number, c.body.invoice_number]).toEqual([
      "INV-000001",
      "INV-000002",
      "INV-000001",
      "INV-000001",
    ]);
  });

  it("never repeat or skip under 50 concurrent creates", async () => {
    const m = await t.createMerchant();
    const results = await Promise.all(Array.from({ length: 50 }, () => createInvoice({ amount: "2" }, m.sandboxKey)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => r.body.invoice_number).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `INV-${String(i + 1).padStart(6, "0")}`));
  });

  it("are not used up by a refused create", async () => {
    const m = await t.createMerchant();
    await createInvoice({ amount: "1" }, m.sandboxKey);
    await createInvoice({ amount: "1", customer_id: "cus_unknown0000000000000" }, m.sandboxKey);
    const next = await createInvoice({ amount: "1" }, m.sandboxKey);
    expect(next.body.invoice_number).toBe("INV-000002");
  });
});

describe("POST /invoices/{id}/finalize", () => {
  it("draft -> open: creates a checkout session and a payment (source_type invoice) expiring at due_at", async () => {
    const invoice = await createInvoice({ amount: "40", description: "Rent", due_in_days: 3 });
    const res = await action(invoice.body.id, "finalize");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["checkout_url", "invoice"]);
    const session = await t.api("GET", `/checkout-sessions/${res.body.invoice.checkout_session_id}`, { key: merchant.sandboxKey });
    expect(res.body.checkout_url).toBe(`http://pay.example.test/c/${session.body.id}`);
    expect(res.body.invoice).toMatchObject({
      id: invoice.body.id,
      status: "open",
      invoice_number: invoice.body.invoice_number,
      checkout_url: res.body.checkout_url,
      settlement_asset: { asset_code: "XLM", issuer_address: null },
      allowed_assets: [{ asset_code: "XLM", issuer_address: null }],
    });
    expect(session.body).toMatchObject({ status: "open", amount: "40.0000000", expires_at: invoice.body.due_at });
    const payment = await t.api("GET", `/payments/${session.body.payment_intent_id}`, { key: merchant.sandboxKey });
    expect(payment.body).toMatchObject({ source_type: "invoice", status: "pending", description: "Rent", expires_at: invoice.body.due_at });
    expect(await eventTypes(invoice.body.id)).toEqual(["invoice.finalized"]);
    const event = await t.database.db.event.findFirstOrThrow({ where: { resourceId: invoice.body.id } });
    expect(JSON.parse(event.data)).toEqual(res.body.invoice);
  });

  it("refuses a non-draft with 409 Invoice is not a draft, and creates nothing", async () => {
    const invoice = await createInvoice({ amount: "1" });
    await action(invoice.body.id, "finalize");
    const sessions = await t.database.db.checkoutSession.count();
    const res = await action(invoice.body.id, "finalize");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "Invoice is not a draft" });
    expect(await t.database.db.checkoutSession.count()).toBe(sessions);

    const voided = await createInvoice({ amount: "1" });
    await action(voided.body.id, "void");
    expect((await action(voided.body.id, "finalize")).body).toEqual({ error: "Invoice is not a draft" });
  });

  it("refuses an invoice past its due date with 409, leaving it a draft with no payment", async () => {
    const invoice = await createInvoice({ amount: "1", due_in_days: 1 });
    const payments = await t.database.db.payment.count();
    const twoDays = 2 * 24 * 60 * 60_000;
    t.clock.advance(twoDays);
    try {
      const res = await action(invoice.body.id, "finalize");
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "Invoice is past its due date" });
    } finally {
      t.clock.advance(-twoDays);
    }
    expect((await t.api("GET", `/invoices/${invoice.body.id}`, { key: merchant.sandboxKey })).body.status).toBe("draft");
    expect(await t.database.db.payment.count()).toBe(payments);
  });

  it("lets exactly one of two concurrent finalizes win", async () => {
    const invoice = await createInvoice({ amount: "1" });
    const results = await Promise.all([action(invoice.body.id, "finalize"), action(invoice.body.id, "finalize")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await t.database.db.checkoutSession.count({ where: { invoice: { id: invoice.body.id } } })).toBe(1);
    expect(await t.database.db.payment.count({ where: { sourceType: "invoice", invoice: { id: invoice.body.id } } })).toBe(1);
  });

  it("draws the payment's memo id again when the one drawn is taken, and opens the invoice once", async () => {
    const invoice = await createInvoice({ amount: "3" });
    const { memoId: taken } = await t.database.db.payment.findFirstOrThrow();
    const { ids, drawn } = drawingMemoIds([taken]);
    const scope = { organizationId: merchant.organizationId, environment: "sandbox" as const, principal: { kind: "key" as const, id: "key_test", role: "admin" as const } };
    const sessions = await t.database.db.checkoutSession.count();
    const { invoice: opened } = await finalizeInvoice({ ...t.deps, ids, scope }, invoice.body.id);
    expect(drawn).toHaveLength(2);
    expect(opened.payment).toMatchObject({ memoId: drawn[1] });
    expect(await t.database.db.payment.findUniqueOrThrow({ where: { id: opened.paymentId! } })).toMatchObject({ memoId: drawn[1] });
    expect(await t.database.db.checkoutSession.count()).toBe(sessions + 1);
    expect(await eventTypes(invoice.body.id)).toEqual(["invoice.finalized"]);
    expect((await t.api("GET", `/invoices/${invoice.body.id}`, { key: merchant.sandboxKey })).body.status).toBe("open");
  });

  it("answers 404 for unknown ids and for another environment's invoice", async () => {
    const invoice = await createInvoice({ amount: "1" });
    expect((await action("inv_unknown0000000000000", "finalize")).status).toBe(404);
    expect((await action(invoice.body.id, "finalize", merchant.liveKey)).body).toEqual({ error: "Not found" });
  });
});

describe("open -> paid", () => {
  it("when its payment completes: paid_at set, invoice.paid and checkout.session.completed written", async () => {
    const invoice = await createInvoice({ amount: "9" });
    const finalized = await action(invoice.body.id, "finalize");
    const paymentId = finalized.body.invoice.payment_intent_id;
    const done = await t.api("POST", `/payments/${paymentId}/complete`, { key: merchant.sandboxKey });
    expect(done.status).toBe(200);
    const res = await t.api("GET", `/invoices/${invoice.body.id}`, { key: merchant.sandboxKey });
    expect(res.body).toMatchObject({ status: "paid" });
    expect(res.body.paid_at).toBe(done.body.confirmed_at);
    expect(await eventTypes(invoice.body.id)).toEqual(["invoice.finalized", "invoice.paid"]);
    expect(await eventTypes(finalized.body.invoice.checkout_session_id)).toEqual(["checkout.session.completed"]);
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.completed"]);
  });

  it("a paid invoice can be neither finalized nor voided (409)", async () => {
    const invoice = await createInvoice({ amount: "9" });
    const finalized = await action(invoice.body.id, "finalize");
    await t.api("POST", `/payments/${finalized.body.invoice.payment_intent_id}/complete`, { key: merchant.sandboxKey });
    expect(await action(invoice.body.id, "void")).toMatchObject({
      status: 409,
      body: { error: "Invoice can only be voided while draft or open" },
    });
    expect((await action(invoice.body.id, "finalize")).status).toBe(409);
  });
});

describe("POST /invoices/{id}/void", () => {
  it("draft -> void with invoice.voided", async () => {
    const invoice = await createInvoice({ amount: "2" });
    const res = await action(invoice.body.id, "void");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "void", checkout_session_id: null });
    expect(res.body.voided_at).not.toBeNull();
    expect(await eventTypes(invoice.body.id)).toEqual(["invoice.voided"]);
  });

  it("open -> void expires its pending payment and its checkout session", async () => {
    const invoice = await createInvoice({ amount: "2" });
    const finalized = await action(invoice.body.id, "finalize");
    const res = await action(invoice.body.id, "void");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("void");
    const { payment_intent_id: paymentId, checkout_session_id: sessionId } = finalized.body.invoice;
    expect((await t.api("GET", `/payments/${paymentId}`, { key: merchant.sandboxKey })).body.status).toBe("expired");
    expect((await t.api("GET", `/checkout-sessions/${sessionId}`, { key: merchant.sandboxKey })).body).toMatchObject({
      status: "expired",
      payment_status: "expired",
    });
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.expired"]);
    expect(await eventTypes(sessionId)).toEqual(["checkout.session.expired"]);
    expect(await eventTypes(invoice.body.id)).toEqual(["invoice.finalized", "invoice.voided"]);
  });

  it("refuses to void a void invoice (409), and its payment can no longer be completed", async () => {
    const invoice = await createInvoice({ amount: "2" });
    const finalized = await action(invoice.body.id, "finalize");
    await action(invoice.body.id, "void");
    expect((await action(invoice.body.id, "void")).status).toBe(409);
    const complete = await t.api("POST", `/payments/${finalized.body.invoice.payment_intent_id}/complete`, { key: merchant.sandboxKey });
    expect(complete).toMatchObject({ status: 409, body: { error: "Payment is not pending" } });
  });
});

describe("GET /invoices/{id}", () => {
  it("reads an invoice; 404 for unknown or foreign ids", async () => {
    const invoice = await createInvoice({ amount: "2" });
    const res = await t.api("GET", `/invoices/${invoice.body.id}`, { key: merchant.sandboxKey });
    expect(res).toMatchObject({ status: 200, body: invoice.body });
    const other = await t.createMerchant();
    expect((await t.api("GET", `/invoices/${invoice.body.id}`, { key: other.sandboxKey })).status).toBe(404);
    expect((await t.api("GET", "/invoices/inv_nope000000000000000000", { key: merchant.sandboxKey })).status).toBe(404);
  });
});
