// #27 items 5 and 6 on the doors: a refused field told in people's words on GraphQL (the spec's own
// message on REST, unchanged), a customer that must have a name or an email on both doors, the
// customer search the dashboard's picker uses, and a draft invoice's asset.
import { Keypair } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { postGraphQL, signedInUser } from "./support/dashboard.ts";
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

// #27 item 5's leftovers: every refusal a dashboard form can meet names its field in words and says
// what would be right (extensions.field: where the form shows it); REST keeps its own messages.
describe("the GraphQL door's refusals in people's words", () => {
  const refusal = (res: { body: any }) => {
    const error = onlyError(res);
    return { message: error.message, code: error.extensions.code, field: error.extensions.field };
  };

  it("payments: an unknown customer, a currency without a rate, an asset not enabled, no settlement wallet (REST unchanged)", async () => {
    const before = await t.database.db.payment.count();
    expect(refusal(await t.graphql(CREATE_PAYMENT, { input: { amount: "1", customerId: "cus_nobody00000000000000" } }, merchant.sandboxKey))).toEqual({
      message: "Customer: not one of your customers; pick one from the list or add a new one",
      code: "BAD_REQUEST",
      field: "customerId",
    });
    expect(refusal(await t.graphql(CREATE_PAYMENT, { input: { pricingCurrency: "EUR", pricingAmount: "5" } }, merchant.sandboxKey))).toEqual({
      message: "Pricing currency: no rate from EUR to XLM is set; add one in Settings, or give the amount in XLM",
      code: "BAD_REQUEST",
      field: "pricingCurrency",
    });
    expect(refusal(await t.graphql(CREATE_PAYMENT, { input: { amount: "1", asset: "EURC" } }, merchant.sandboxKey))).toEqual({
      message: "Asset: EURC is not one of your enabled assets; enable it in Settings, or choose another",
      code: "BAD_REQUEST",
      field: "asset",
    });
    const issuer = "GDUKMGUGDZQK6YHYA5Z6AY2G4XDSZPSZ3SW5UN3ARVMO6QSRDWP5YLEX";
    expect(refusal(await t.graphql(CREATE_PAYMENT, { input: { amount: "1", allowedAssets: [{ assetCode: "USDC", issuerAddress: issuer }] } }, merchant.sandboxKey))).toEqual({
      message: "Allowed asset 1: USDC is not one of your enabled assets; enable it in Settings, or choose another",
      code: "BAD_REQUEST",
      field: "allowedAssets.0",
    });
    const walletless = await t.createMerchant({ wallet: false });
    expect(refusal(await t.graphql(CREATE_INVOICE, { input: { amount: "1" } }, walletless.sandboxKey))).toEqual({
      message: "No settlement wallet yet: set the wallet payments are paid to in Settings first",
      code: "BAD_REQUEST",
      field: undefined,
    });
    expect(await t.database.db.payment.count()).toBe(before);
    // REST: the spec's messages, as they were.
    expect((await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", customer_id: "cus_nobody00000000000000" } })).body).toEqual({
      error: "customer_id does not name a customer",
    });
    expect((await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { pricing_currency: "EUR", pricing_amount: "5" } })).body).toEqual({ error: "No exchange rate for EUR to XLM" });
    expect((await t.api("POST", "/invoices", { key: walletless.sandboxKey, body: { amount: "1" } })).body).toEqual({ error: "Settlement wallet is not configured" });
  });

  it("webhook endpoints and API keys: the URL, the events, the key's name and role", async () => {
    const CREATE_ENDPOINT = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;
    expect(refusal(await t.graphql(CREATE_ENDPOINT, { input: { url: "ftp://example.com/hook", enabledEvents: ["*"] } }, merchant.sandboxKey))).toEqual({
      message: "URL: a web address starting with https://",
      code: "BAD_REQUEST",
      field: "url",
    });
    expect(refusal(await t.graphql(CREATE_ENDPOINT, { input: { url: "https://example.com/hook", enabledEvents: [] } }, merchant.sandboxKey))).toEqual({
      message: "Enabled events: choose at least one",
      code: "BAD_REQUEST",
      field: "enabledEvents",
    });
    expect(refusal(await t.graphql(CREATE_ENDPOINT, { input: { url: "http://example.com/hook", enabledEvents: ["*"] } }, merchant.liveKey))).toEqual({
      message: "URL: must start with https:// (production events are sent over https only)",
      code: "BAD_REQUEST",
      field: "url",
    });
    const CREATE_KEY = `mutation($name: String) { createApiKey(environment: sandbox, name: $name) { key } }`;
    expect(refusal(await t.graphql(CREATE_KEY, { name: "k".repeat(101) }, merchant.sandboxKey))).toEqual({
      message: "Name: must be at most 100 characters",
      code: "BAD_REQUEST",
      field: "name",
    });
  });

  it("settings, team and sign-in: display name, wallet, asset, rate, password again, invitation, reset request", async () => {
    const owner = await signedInUser(t, merchant.organizationId, "owner");
    const ask = async (query: string, variables: Record<string, unknown>) => refusal(await owner.graphql(query, variables));
    expect(await ask(`mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { name } }`, { input: { displayName: "two\nlines" } })).toEqual({
      message: "Display name: must be one line of text",
      code: "BAD_REQUEST",
      field: "displayName",
    });
    const WALLET = `mutation($address: String!, $password: String) { setSettlementWallet(address: $address, password: $password) { id } }`;
    expect(await ask(WALLET, { address: "GNOTAKEY", password: owner.password })).toEqual({
      message: "Address: a Stellar account address: 56 characters starting with G",
      code: "BAD_REQUEST",
      field: "address",
    });
    expect(await ask(WALLET, { address: Keypair.random().publicKey() })).toEqual({
      message: "Password: give your password again to make this change",
      code: "BAD_REQUEST",
      field: "password",
    });
    const ASSET = `mutation($code: String!, $issuer: String!, $password: String) { enableAsset(assetCode: $code, issuerAddress: $issuer, password: $password) { id } }`;
    expect(await ask(ASSET, { code: "NOT-A-CODE", issuer: Keypair.random().publicKey(), password: owner.password })).toEqual({
      message: "Asset code: 1 to 12 letters or digits, such as USDC (XLM is always enabled)",
      code: "BAD_REQUEST",
      field: "assetCode",
    });
    expect(await ask(ASSET, { code: "USDC", issuer: "GNOPE", password: owner.password })).toEqual({
      message: "Issuer address: a Stellar account address: 56 characters starting with G",
      code: "BAD_REQUEST",
      field: "issuerAddress",
    });
    const RATE = `mutation($currency: String!, $price: String!, $password: String) { setExchangeRate(currency: $currency, assetCode: "XLM", price: $price, password: $password) { id } }`;
    expect(await ask(RATE, { currency: "eur", price: "0.3", password: owner.password })).toEqual({
      message: "Currency: a currency's 3-letter code in capitals, such as EUR",
      code: "BAD_REQUEST",
      field: "currency",
    });
    expect(await ask(RATE, { currency: "EUR", price: "0", password: owner.password })).toEqual({
      message: "Price: a number above 0 with up to 7 decimals, such as 0.25",
      code: "BAD_REQUEST",
      field: "price",
    });
    const INVITE = `mutation($email: String!) { inviteUser(email: $email, role: viewer) { id } }`;
    expect(await ask(INVITE, { email: "not an address" })).toEqual({ message: "Email: an email address, such as name@example.com", code: "BAD_REQUEST", field: "email" });
    expect(await ask(INVITE, { email: owner.email })).toEqual({
      message: `Email: ${owner.email} is already on your team; change their role on the Team screen instead`,
      code: "CONFLICT",
      field: "email",
    });
    const reset = await postGraphQL(t, { query: `mutation { requestPasswordReset(email: "nobody-at-all") }` });
    expect(refusal(reset)).toEqual({ message: "Email: an email address, such as name@example.com", code: "BAD_REQUEST", field: "email" });
    // Nothing was changed by any of them.
    const org = await t.database.db.environmentSettings.findMany({ where: { organizationId: merchant.organizationId } });
    expect(org.map((row) => row.settlementAddress)).not.toContain("GNOTAKEY");
    expect(await t.database.db.invitation.count({ where: { organizationId: merchant.organizationId } })).toBe(0);
  });
});
