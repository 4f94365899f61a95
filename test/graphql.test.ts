import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresSchema } from "../src/db/client.ts";
import { enableAsset } from "../src/modules/organizations/organizations.service.ts";
import { type Merchant, type TestApp, dialect, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let other: Merchant;
const USDC_ISSUER = Keypair.random().publicKey();

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  other = await t.createMerchant();
  await enableAsset(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", code: "USDC", issuer: USDC_ISSUER });
});
afterAll(() => t.close());

const PAYMENT_FIELDS = `id amount status description metadata checkoutUrl sourceType customerId expiresAt createdAt
  settlementAsset { assetCode issuerAddress } allowedAssets { assetCode issuerAddress } paidAsset { assetCode }
  pricingCurrency pricingAmount`;

const CREATE_PAYMENT = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { ${PAYMENT_FIELDS} } }`;
const CREATE_CUSTOMER = `mutation($input: CustomerInput!) { createCustomer(input: $input) { id email name description metadata createdAt updatedAt } }`;

async function createPayment(input: Record<string, unknown>, key = merchant.sandboxKey) {
  const res = await t.graphql(CREATE_PAYMENT, { input }, key);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createPayment;
}

/** The single error of a failed operation, with no data leaking past it. */
function onlyError(res: { body: any }) {
  expect(res.body.errors).toHaveLength(1);
  return res.body.errors[0] as { message: string; path?: string[]; extensions?: { code?: string } };
}

describe("GraphQL payments", () => {
  it("createPayment creates a pending payment with the REST rules, readable through payment(id) and REST", async () => {
    const created = await createPayment({ amount: "10.5", description: "GQL", metadata: { order: "1" }, expiresInMinutes: 30 });
    expect(created).toMatchObject({
      amount: "10.5000000",
      status: "pending",
      description: "GQL",
      metadata: { order: "1" },
      sourceType: "direct",
      checkoutUrl: `http://pay.example.test/c/${created.id}`,
      settlementAsset: { assetCode: "XLM", issuerAddress: null },
      allowedAssets: [{ assetCode: "XLM", issuerAddress: null }, { assetCode: "USDC", issuerAddress: USDC_ISSUER }],
      paidAsset: null,
    });
    expect(created.id).toMatch(/^pay_/);
    expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(30 * 60_000);

    const read = await t.graphql(`query($id: ID!) { payment(id: $id) { ${PAYMENT_FIELDS} } }`, { id: created.id }, merchant.sandboxKey);
    expect(read.body.data.payment).toEqual(created);
    const rest = await t.api("GET", `/payments/${created.id}`, { key: merchant.sandboxKey });
    expect(rest.body).toMatchObject({ id: created.id, amount: "10.5000000" });
    const events = await t.database.db.event.findMany({ where: { resourceId: created.id } });
    expect(events.map((e) => e.type)).toEqual(["payment.created"]);
  });

  it("createPayment accepts the quickstart asset and the pricing pair", async () => {
    const quick = await createPayment({ amount: "2", asset: "USDC" });
    expect(quick.settlementAsset).toEqual({ assetCode: "USDC", issuerAddress: USDC_ISSUER });
    const priced = await createPayment({ pricingCurrency: "USD", pricingAmount: "3", settlementAsset: { assetCode: "USDC", issuerAddress: USDC_ISSUER } });
    expect(priced).toMatchObject({ amount: "3.0000000", pricingCurrency: "USD", pricingAmount: "3.0000000" });
  });

  it.each([
    // in people's words, as the dashboard shows them (REST keeps the spec's: bad-input.test.ts)
    [{ amount: "1.12345678" }, "Amount: a number with up to 7 decimals"],
    [{ amount: "0" }, "Amount: must be more than 0"],
    [{ description: "no amount" }, "Amount: required"],
    [{ amount: "1", expiresInMinutes: 4 }, "Expires in minutes: must be at least 5"],
    [{ amount: "1", allowedAssets: [] }, "Allowed assets: choose at least one"],
    [{ amount: "1", metadata: { n: 1 } }, "Metadata n: must be a string"],
    [{ amount: "1", customerId: "cus_nobody00000000000000" }, "Customer: not one of your customers; pick one from the list or add a new one"],
    [{ pricingCurrency: "EUR", pricingAmount: "5" }, "Pricing currency: no rate from EUR to XLM is set; add one in Settings, or give the amount in XLM"],
  ])("createPayment refuses %j with BAD_REQUEST and the field's message, writing nothing", async (input, message) => {
    const before = await t.database.db.payment.count();
    const res = await t.graphql(CREATE_PAYMENT, { input }, merchant.sandboxKey);
    const error = onlyError(res);
    expect(error.message).toBe(message);
    expect(error.extensions?.code).toBe("BAD_REQUEST");
    expect(res.body.data).toBeNull();
    expect(await t.database.db.payment.count()).toBe(before);
  });

  it("createPayment without a settlement wallet is BAD_REQUEST, saying where to set one", async () => {
    const walletless = await t.createMerchant({ wallet: false });
    const error = onlyError(await t.graphql(CREATE_PAYMENT, { input: { amount: "1" } }, walletless.sandboxKey));
    expect(error).toMatchObject({ message: "No settlement wallet yet: set the wallet payments are paid to in Settings first", extensions: { code: "BAD_REQUEST" }, path: ["createPayment"] });
    // About no one field of the input.
    expect(error.extensions).not.toHaveProperty("field");
  });

  it("payments is a connection, newest first, paged with first/after and filtered by status", async () => {
    const pager = await t.createMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createPayment({ amount: String(i + 1) }, pager.sandboxKey)).id);
      t.clock.advance(1000);
    }
    const newest = [...ids].reverse();
    const query = `query($first: Int, $after: String, $status: PaymentStatus) {
      payments(first: $first, after: $after, status: $status) {
        edges { cursor node { id status } } pageInfo { hasNextPage endCursor }
      }
    }`;
    const first = await t.graphql(query, { first: 2 }, pager.sandboxKey);
    expect(first.body.errors).toBeUndefined();
    const page1 = first.body.data.payments;
    expect(page1.edges.map((e: any) => e.node.id)).toEqual(newest.slice(0, 2));
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const second = await t.graphql(query, { first: 2, after: page1.pageInfo.endCursor }, pager.sandboxKey);
    expect(second.body.data.payments.edges.map((e: any) => e.node.id)).toEqual(newest.slice(2, 4));
    const rest = await t.graphql(query, { first: 10, after: second.body.data.payments.pageInfo.endCursor }, pager.sandboxKey);
    expect(rest.body.data.payments.edges.map((e: any) => e.node.id)).toEqual(newest.slice(4));
    expect(rest.body.data.payments.pageInfo.hasNextPage).toBe(false);

    await t.database.db.payment.update({ where: { id: ids[2]! }, data: { status: "expired" } });
    const expired = await t.graphql(query, { first: 10, status: "expired" }, pager.sandboxKey);
    expect(expired.body.data.payments.edges.map((e: any) => e.node.id)).toEqual([ids[2]]);
  });
});

describe("GraphQL customers", () => {
  it("createCustomer, customer(id), customers and updateCustomer (partial, null clears)", async () => {
    const created = await t.graphql(CREATE_CUSTOMER, { input: { email: "gql@example.com", name: "Gee", metadata: { a: "1" } } }, merchant.sandboxKey);
    expect(created.body.errors).toBeUndefined();
    const customer = created.body.data.createCustomer;
    expect(customer).toMatchObject({ email: "gql@example.com", name: "Gee", description: null, metadata: { a: "1" } });
    expect(customer.id).toMatch(/^cus_/);

    const read = await t.graphql(`query($id: ID!) { customer(id: $id) { id email name } }`, { id: customer.id }, merchant.sandboxKey);
    expect(read.body.data.customer).toEqual({ id: customer.id, email: "gql@example.com", name: "Gee" });

    const list = await t.graphql(`{ customers(first: 50) { edges { node { id } } } }`, undefined, merchant.sandboxKey);
    expect(list.body.data.customers.edges.map((e: any) => e.node.id)).toContain(customer.id);

    const update = `mutation($id: ID!, $input: CustomerInput!) { updateCustomer(id: $id, input: $input) { id email name metadata } }`;
    const updated = await t.graphql(update, { id: customer.id, input: { name: "Gee 2", email: null } }, merchant.sandboxKey);
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateCustomer).toEqual({ id: customer.id, email: null, name: "Gee 2", metadata: { a: "1" } });
    const rest = await t.api("GET", `/customers/${customer.id}`, { key: merchant.sandboxKey });
    expect(rest.body).toMatchObject({ name: "Gee 2", email: null });

    const bad = await t.graphql(update, { id: customer.id, input: { email: "nope" } }, merchant.sandboxKey);
    expect(onlyError(bad)).toMatchObject({ message: "Email: an email address, such as name@example.com", extensions: { code: "BAD_REQUEST" } });
  });

  it("createCustomer refuses a bad email with BAD_REQUEST, writing nothing", async () => {
    const before = await t.database.db.customer.count();
    const res = await t.graphql(CREATE_CUSTOMER, { input: { email: "not-an-email" } }, merchant.sandboxKey);
    expect(onlyError(res)).toMatchObject({ message: "Email: an email address, such as name@example.com", extensions: { code: "BAD_REQUEST" } });
    expect(await t.database.db.customer.count()).toBe(before);
  });
});

describe("GraphQL authentication and isolation", () => {
  const operations: [string, string, Record<string, unknown>?][] = [
    ["payment", `query { payment(id: "pay_x") { id } }`],
    ["payments", `{ payments(first: 1) { edges { node { id } } } }`],
    ["customer", `query { customer(id: "cus_x") { id } }`],
    ["customers", `{ customers(first: 1) { edges { node { id } } } }`],
    ["createPayment", CREATE_PAYMENT, { input: { amount: "1" } }],
    ["createCustomer", CREATE_CUSTOMER, { input: {} }],
    ["updateCustomer", `mutation { updateCustomer(id: "cus_x", input: {}) { id } }`],
  ];

  for (const [name, query, variables] of operations) {
    it(`${name} without a key (or with a bad or revoked-format key) is UNAUTHENTICATED`, async () => {
      for (const key of [undefined, "pk_test_nope", `pk_live_${"Z".repeat(32)}`]) {
        const res = await t.graphql(query, variables, key);
        const error = onlyError(res);
        expect(error).toMatchObject({ message: "Unauthorized", extensions: { code: "UNAUTHENTICATED" } });
      }
    });
  }

  it("nothing is created without a key", async () => {
    const before = await t.database.db.payment.count();
    await t.graphql(CREATE_PAYMENT, { input: { amount: "1" } });
    expect(await t.database.db.payment.count()).toBe(before);
  });

  it("another environment's or organization's payment and customer are NOT_FOUND, and lists leave them out", async () => {
    const payment = await createPayment({ amount: "4" });
    const customer = (await t.graphql(CREATE_CUSTOMER, { input: { name: "Private" } }, merchant.sandboxKey)).body.data.createCustomer;
    for (const key of [merchant.liveKey, other.sandboxKey]) {
      const p = await t.graphql(`query($id: ID!) { payment(id: $id) { id } }`, { id: payment.id }, key);
      expect(onlyError(p)).toMatchObject({ message: "Not found", extensions: { code: "NOT_FOUND" } });
      const c = await t.graphql(`query($id: ID!) { customer(id: $id) { id } }`, { id: customer.id }, key);
      expect(onlyError(c)).toMatchObject({ message: "Not found", extensions: { code: "NOT_FOUND" } });
      const u = await t.graphql(`mutation($id: ID!) { updateCustomer(id: $id, input: { name: "x" }) { id } }`, { id: customer.id }, key);
      expect(onlyError(u)).toMatchObject({ extensions: { code: "NOT_FOUND" } });
      const lists = await t.graphql(`{ payments(first: 50) { edges { node { id } } } customers(first: 50) { edges { node { id } } } }`, undefined, key);
      expect(lists.body.data.payments.edges.map((e: any) => e.node.id)).not.toContain(payment.id);
      expect(lists.body.data.customers.edges.map((e: any) => e.node.id)).not.toContain(customer.id);
    }
    const linked = await t.graphql(CREATE_PAYMENT, { input: { amount: "1", customerId: customer.id } }, other.sandboxKey);
    expect(onlyError(linked)).toMatchObject({ message: "Customer: not one of your customers; pick one from the list or add a new one", extensions: { code: "BAD_REQUEST", field: "customerId" } });
  });
});

describe("GraphQL unexpected errors", () => {
  it("are masked: no driver message, table name or stack reaches the client", async () => {
    const broken = await startTestApp();
    try {
      const m = await broken.createMerchant();
      const table = dialect === "postgresql" ? `"${postgresSchema(broken.config.databaseUrl)}"."Customer"` : `"Customer"`;
      await broken.database.db.$executeRawUnsafe(`ALTER TABLE ${table} RENAME TO "CustomerGone"`);
      const res = await broken.graphql(`{ customers(first: 1) { edges { node { id } } } }`, undefined, m.sandboxKey);
      const error = onlyError(res);
      expect(error).toMatchObject({ message: "Internal server error", extensions: { code: "INTERNAL" } });
      const text = JSON.stringify(res.body);
      expect(text).not.toMatch(/Customer\b|prisma|sqlite|relation|stack/i);
    } finally {
      await broken.close();
    }
  });
});
