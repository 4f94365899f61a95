// GraphQL for checkout sessions, payment links, invoices and manual completion: the same rules as REST.
import { describe, expect, it } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const gql = async (query: string, variables?: Record<string, unknown>, key: string | undefined = merchant.sandboxKey) =>
  (await t.graphql(query, variables, key)).body;

const INVOICE_FIELDS = `id invoiceNumber status amount description customerId checkoutSessionId checkoutUrl hostedInvoiceUrl
  paymentIntentId dueAt paidAt sentAt settlementAsset { assetCode issuerAddress } items { description quantity unitAmount }`;

describe("checkout sessions", () => {
  it("createCheckoutSession, checkoutSession and checkoutSessions(status)", async () => {
    const created = await gql(
      `mutation($input: CreateCheckoutSessionInput!) { createCheckoutSession(input: $input) {
        id status checkoutUrl amount paymentStatus successUrl paymentIntentId payment { sourceType status }
        settlementAsset { assetCode } allowedAssets { assetCode } } }`,
      { input: { amount: "8", successUrl: "https://shop.example/ok" } },
    );
    expect(created.errors).toBeUndefined();
    const session = created.data.createCheckoutSession;
    expect(session).toMatchObject({
      status: "open",
      checkoutUrl: `http://pay.example.test/c/${session.id}`,
      amount: "8.0000000",
      paymentStatus: "pending",
      successUrl: "https://shop.example/ok",
      payment: { sourceType: "checkout_session", status: "pending" },
      settlementAsset: { assetCode: "XLM" },
      allowedAssets: [{ assetCode: "XLM" }],
    });
    const read = await gql(`query($id: ID!) { checkoutSession(id: $id) { id status } }`, { id: session.id });
    expect(read.data.checkoutSession).toEqual({ id: session.id, status: "open" });
    const list = await gql(`{ checkoutSessions(status: open, first: 50) { edges { node { id } } } }`);
    expect(list.data.checkoutSessions.edges.map((e: any) => e.node.id)).toContain(session.id);
    const none = await gql(`{ checkoutSessions(status: complete) { edges { node { id } } } }`);
    expect(none.data.checkoutSessions.edges).toEqual([]);
  });

  it("validates with the REST schema (BAD_REQUEST naming the field)", async () => {
    const res = await gql(`mutation { createCheckoutSession(input: { amount: "1", cancelUrl: "javascript:alert(1)" }) { id } }`);
    expect(res.errors[0]).toMatchObject({ message: "Cancel URL: must be an http(s) URL", extensions: { code: "BAD_REQUEST" } });
  });
});

describe("payment links", () => {
  it("createPaymentLink, paymentLink, paymentLinks(active), deactivate and activate", async () => {
    const created = await gql(`mutation { createPaymentLink(input: { amount: "3", description: "Mug" }) { id url active environment amount } }`);
    const link = created.data.createPaymentLink;
    expect(link).toMatchObject({ url: `http://pay.example.test/c/${link.id}`, active: true, environment: "sandbox", amount: "3.0000000" });
    const off = await gql(`mutation($id: ID!) { deactivatePaymentLink(id: $id) { id active } }`, { id: link.id });
    expect(off.data.deactivatePaymentLink).toEqual({ id: link.id, active: false });
    const inactive = await gql(`{ paymentLinks(active: false) { edges { node { id } } } }`);
    expect(inactive.data.paymentLinks.edges.map((e: any) => e.node.id)).toEqual([link.id]);
    const on = await gql(`mutation($id: ID!) { activatePaymentLink(id: $id) { active } }`, { id: link.id });
    expect(on.data.activatePaymentLink.active).toBe(true);

    await fetch(`${t.url}/c/${link.id}`, { redirect: "manual" });
    const read = await gql(`query($id: ID!) { paymentLink(id: $id) { checkoutSessions { edges { node { paymentLinkId payment { sourceType } } } } } }`, {
      id: link.id,
    });
    expect(read.data.paymentLink.checkoutSessions.edges).toEqual([{ node: { paymentLinkId: link.id, payment: { sourceType: "payment_link" } } }]);
  });

  it("answers NOT_FOUND for another environment's link", async () => {
    const created = await gql(`mutation { createPaymentLink(input: { amount: "3" }) { id } }`);
    const res = await gql(`query($id: ID!) { paymentLink(id: $id) { id } }`, { id: created.data.createPaymentLink.id }, merchant.liveKey);
    expect(res.errors[0]).toMatchObject({ message: "Not found", extensions: { code: "NOT_FOUND" } });
  });
});

describe("invoices", () => {
  it("createInvoice (draft) -> finalizeInvoice (open) -> markPaymentCompleted (paid)", async () => {
    const created = await gql(
      `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { ${INVOICE_FIELDS} } }`,
      { input: { items: [{ description: "Seat", quantity: "2", unitAmount: "5" }], dueInDays: 10 } },
    );
    expect(created.errors).toBeUndefined();
    const invoice = created.data.createInvoice;
    expect(invoice).toMatchObject({
      status: "draft",
      amount: "10.0000000",
      invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
      checkoutUrl: null,
      // a draft's is already the asset finalizing gives its payment
      settlementAsset: { assetCode: "XLM", issuerAddress: null },
      hostedInvoiceUrl: `http://pay.example.test/i/${invoice.id}`,
      items: [{ description: "Seat", quantity: "2", unitAmount: "5.0000000" }],
    });

    const finalized = await gql(`mutation($id: ID!) { finalizeInvoice(id: $id) { ${INVOICE_FIELDS} } }`, { id: invoice.id });
    const open = finalized.data.finalizeInvoice;
    expect(open).toMatchObject({ status: "open", settlementAsset: { assetCode: "XLM" } });
    expect(open.checkoutUrl).toBe(`http://pay.example.test/c/${open.checkoutSessionId}`);

    const again = await gql(`mutation($id: ID!) { finalizeInvoice(id: $id) { id } }`, { id: invoice.id });
    expect(again.errors[0]).toMatchObject({ message: "Invoice is not a draft", extensions: { code: "CONFLICT" } });

    const paid = await gql(`mutation($id: ID!) { markPaymentCompleted(id: $id) { status confirmedAt } }`, { id: open.paymentIntentId });
    expect(paid.data.markPaymentCompleted.status).toBe("completed");
    const read = await gql(`query($id: ID!) { invoice(id: $id) { status paidAt checkoutSession { status } } }`, { id: invoice.id });
    expect(read.data.invoice).toEqual({ status: "paid", paidAt: paid.data.markPaymentCompleted.confirmedAt, checkoutSession: { status: "complete" } });

    const twice = await gql(`mutation($id: ID!) { markPaymentCompleted(id: $id) { id } }`, { id: open.paymentIntentId });
    expect(twice.errors[0]).toMatchObject({ message: "Payment is not pending", extensions: { code: "CONFLICT" } });
  });

  it("voidInvoice, and invoices(status, customerId)", async () => {
    const customer = await gql(`mutation { createCustomer(input: { name: "Inv" }) { id } }`);
    const customerId = customer.data.createCustomer.id;
    const created = await gql(`mutation($c: String) { createInvoice(input: { amount: "2", customerId: $c }) { id } }`, { c: customerId });
    const id = created.data.createInvoice.id;
    const voided = await gql(`mutation($id: ID!) { voidInvoice(id: $id) { status voidedAt } }`, { id });
    expect(voided.data.voidInvoice.status).toBe("void");
    const list = await gql(`query($c: String) { invoices(status: void, customerId: $c) { edges { node { id } } } }`, { c: customerId });
    expect(list.data.invoices.edges).toEqual([{ node: { id } }]);
    const again = await gql(`mutation($id: ID!) { voidInvoice(id: $id) { id } }`, { id });
    expect(again.errors[0].extensions.code).toBe("CONFLICT");
  });

  it("refuses items that do not add up to the amount (BAD_REQUEST)", async () => {
    const res = await gql(`mutation { createInvoice(input: { amount: "3", items: [{ description: "A", quantity: "1", unitAmount: "2" }] }) { id } }`);
    expect(res.errors[0]).toMatchObject({
      message: "Amount: must equal the items' total (quantity × unit amount)",
      extensions: { code: "BAD_REQUEST" },
    });
  });

  it("answers UNAUTHENTICATED without a key", async () => {
    const res = await gql(`{ invoices { edges { node { id } } } }`, undefined, "");
    expect(res.errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });
});
