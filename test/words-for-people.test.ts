// #27 items 5 and 6 on the doors: a refused field told in people's words on GraphQL (the spec's own
// message on REST, unchanged), a customer that must have a name or an email on both doors, the
// customer search the dashboard's picker uses, and a draft invoice's asset.
import { describe, expect, it } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const other = await t.createMerchant();

const CREATE_INVOICE = `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { id amount settlementAsset { assetCode issuerAddress } } }`;
const CREATE_PAYMENT = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`;
const CREATE_CUSTOMER = `mutation($input: CustomerInput!) { createCustomer(input: $input) { id name email } }`;
const UPDATE_CUSTOMER = `mutation($id: ID!, $input: CustomerInput!) { updateCustomer(id: $id, input: $input) { id name email } }`;
const SEARCH = `query($search: String) { customers(first: 50, search: $search) { edges { node { id name email } } } }`;

const onlyError = (res: { body: any }) => {
  expect(res.body.errors).toHaveLength(1);
  return res.body.errors[0] as { message: string; extensions: Record<string, unknown> };
};

describe("a refused field in people's words", () => {
  it.each([
    [
      "an item's unit amount with 8 decimals",
      { items: [{ description: "A", quantity: "1", unitAmount: "1.12345678" }] },
      "Item 1 unit amount: a number with up to 7 decimals",
      "items.0.unitAmount",
      { items: [{ description: "A", quantity: "1", unit_amount: "1.12345678" }] },
      "items[0].unit_amount must match ^\\d+(\\.\\d{1,7})?$",
    ],
    [
      "a second item's quantity of 1.5",
      { items: [{ description: "A", quantity: "1", unitAmount: "1" }, { description: "B", quantity: "1.5", unitAmount: "1" }] },
      "Item 2 quantity: a whole number from 1 to 999999999",
      "items.1.quantity",
      { items: [{ description: "A", quantity: "1", unit_amount: "1" }, { description: "B", quantity: "1.5", unit_amount: "1" }] },
      "items[1].quantity must be a whole number from 1 to 999999999, as a string",
    ],
    ["a due date past a year", { amount: "1", dueInDays: 366 }, "Due in days: must be at most 365", "dueInDays", { amount: "1", due_in_days: 366 }, "due_in_days must be at most 365"],
  ])("%s: GraphQL names the field in words and in extensions.field; REST keeps the spec's message", async (_name, input, words, field, body, restMessage) => {
    const before = await t.database.db.invoice.count();
    const error = onlyError(await t.graphql(CREATE_INVOICE, { input }, merchant.sandboxKey));
    expect(error).toMatchObject({ message: words, extensions: { code: "BAD_REQUEST", field } });
    const rest = await t.api("POST", "/invoices", { key: merchant.sandboxKey, body });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: restMessage });
    expect(await t.database.db.invoice.count()).toBe(before);
  });

  it("a payment's amount of 0 and an idempotent retry of it say the same words", async () => {
    const input = { amount: "0" };
    const first = onlyError(await t.graphql(`mutation($input: CreatePaymentInput!) { createPayment(input: $input, idempotencyKey: "zero-1") { id } }`, { input }, merchant.sandboxKey));
    const again = onlyError(await t.graphql(`mutation($input: CreatePaymentInput!) { createPayment(input: $input, idempotencyKey: "zero-1") { id } }`, { input }, merchant.sandboxKey));
    expect(first).toMatchObject({ message: "Amount: must be more than 0", extensions: { code: "BAD_REQUEST", field: "amount" } });
    expect(again).toEqual(first);
    expect(onlyError(await t.graphql(CREATE_PAYMENT, { input: { amount: "abc" } }, merchant.sandboxKey)).message).toBe("Amount: a number with up to 7 decimals");
  });
});

describe("a customer has a name or an email", () => {
  it.each([
    ["nothing", {}],
    ["a name of spaces", { name: "  " }],
    ["only a description", { description: "who?" }],
  ])("refuses a customer with %s on both doors, creating nothing", async (_name, input) => {
    const before = await t.database.db.customer.count();
    expect(onlyError(await t.graphql(CREATE_CUSTOMER, { input }, merchant.sandboxKey))).toMatchObject({
      message: "Name or email: give the customer at least one",
      extensions: { code: "BAD_REQUEST", field: "name" },
    });
    const rest = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: input });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: "name or email is required" });
    expect(await t.database.db.customer.count()).toBe(before);
  });

  it("takes either one, and refuses an update that would clear both, keeping the customer as it was", async () => {
    const byEmail = (await t.graphql(CREATE_CUSTOMER, { input: { email: "only@mail.test" } }, merchant.sandboxKey)).body.data.createCustomer;
    const byName = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Only Name" } });
    expect(byName.status).toBe(201);
    expect(onlyError(await t.graphql(UPDATE_CUSTOMER, { id: byEmail.id, input: { email: null } }, merchant.sandboxKey)).extensions).toMatchObject({ field: "name" });
    const cleared = await t.api("POST", `/customers/${byName.body.id}`, { key: merchant.sandboxKey, body: { name: null } });
    expect(cleared.status).toBe(400);
    expect(cleared.body).toEqual({ error: "name or email is required" });
    // Swapping one for the other is fine.
    const swapped = await t.graphql(UPDATE_CUSTOMER, { id: byEmail.id, input: { email: null, name: "Now Named" } }, merchant.sandboxKey);
    expect(swapped.body.data.updateCustomer).toEqual({ id: byEmail.id, name: "Now Named", email: null });
    expect((await t.api("GET", `/customers/${byName.body.id}`, { key: merchant.sandboxKey })).body.name).toBe("Only Name");
  });
});

describe("customers(search)", () => {
  it("finds customers by part of the name or the email in any case, the caller's only, wildcards taken literally", async () => {
    // A second apart: the list's order (newest first) is then the order made.
    const make = async (input: Record<string, string>, key = merchant.sandboxKey) => {
      t.clock.advance(1000);
      return (await t.graphql(CREATE_CUSTOMER, { input }, key)).body.data.createCustomer.id as string;
    };
    const grace = await make({ name: "Grace Hopper", email: "grace@navy.test" });
    const ada = await make({ name: "Ada Lovelace", email: "ADA@Engine.test" });
    const percent = await make({ name: "100% Cotton Ltd" });
    const underscore = await make({ email: "first_last@shop.test" });
    await make({ name: "Grace in another org" }, other.sandboxKey);
    await make({ name: "Grace in production" }, merchant.liveKey);
    const found = async (search: string | null) =>
      ((await t.graphql(SEARCH, { search }, merchant.sandboxKey)).body.data.customers.edges as { node: { id: string } }[]).map((e) => e.node.id);
    expect(await found("grace")).toEqual([grace]);
    expect(await found("HOPP")).toEqual([grace]);
    expect(await found("engine.TEST")).toEqual([ada]);
    expect(await found("@")).toEqual(expect.arrayContaining([grace, ada, underscore]));
    expect(await found("%")).toEqual([percent]);
    expect(await found("t_l")).toEqual([underscore]);
    expect(await found("nobody")).toEqual([]);
    // No search, or only spaces: every customer, newest first.
    expect((await found(null)).slice(0, 4)).toEqual([underscore, percent, ada, grace]);
    expect((await found("   ")).slice(0, 4)).toEqual([underscore, percent, ada, grace]);
    expect(onlyError(await t.graphql(SEARCH, { search: "x".repeat(321) }, merchant.sandboxKey))).toMatchObject({ extensions: { code: "BAD_REQUEST", field: "search" } });
  });
});

describe("a draft invoice's asset", () => {
  it("is the one finalizing gives its payment (XLM), before and after", async () => {
    const draft = (await t.graphql(CREATE_INVOICE, { input: { amount: "5" } }, merchant.sandboxKey)).body.data.createInvoice;
    expect(draft.settlementAsset).toEqual({ assetCode: "XLM", issuerAddress: null });
    const finalized = await t.graphql(`mutation($id: ID!) { finalizeInvoice(id: $id) { settlementAsset { assetCode issuerAddress } } }`, { id: draft.id }, merchant.sandboxKey);
    expect(finalized.body.data.finalizeInvoice.settlementAsset).toEqual({ assetCode: "XLM", issuerAddress: null });
  });
});
