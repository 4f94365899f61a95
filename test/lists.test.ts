import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface ListCase {
  path: string;
  plural: string;
  /** the GraphQL connection of the same list */
  connection: string;
  create(m: Merchant, customerId?: string): Promise<string>;
  hasCustomer: boolean;
}

const post = async (m: Merchant, path: string, body: Record<string, unknown>) => {
  const res = await t.api("POST", path, { key: m.sandboxKey, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

const newEndpoint = (m: Merchant) => post(m, "/webhook-endpoints", { url: "https://example.test/hook", enabled_events: ["*"] });

const endpointOf = new Map<Merchant, Promise<string>>();
/** A webhook.test delivery to the merchant's one endpoint. */
async function testDelivery(m: Merchant) {
  if (!endpointOf.has(m)) endpointOf.set(m, newEndpoint(m));
  const res = await t.api("POST", `/webhook-endpoints/${await endpointOf.get(m)}/test`, { key: m.sandboxKey });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

const cases: ListCase[] = [
  {
    path: "/payments",
    plural: "payments",
    connection: "payments",
    hasCustomer: true,
    create: (m, c) => post(m, "/payments", { amount: "1", customer_id: c }),
  },
  {
    path: "/checkout-sessions",
    plural: "checkout_sessions",
    connection: "checkoutSessions",
    hasCustomer: true,
    create: (m, c) => post(m, "/checkout-sessions", { amount: "1", customer_id: c }),
  },
  {
    path: "/invoices",
    plural: "invoices",
    connection: "invoices",
    hasCustomer: true,
    create: (m, c) => post(m, "/invoices", { amount: "1", customer_id: c }),
  },
  {
    path: "/payment-links",
    plural: "payment_links",
    connection: "paymentLinks",
    hasCustomer: false,
    create: (m) => post(m, "/payment-links", { amount: "1" }),
  },
  { path: "/customers", plural: "customers", connection: "customers", hasCustomer: false, create: (m) => post(m, "/customers", { name: "c" }) },
  { path: "/webhook-endpoints", plural: "webhook_endpoints", connection: "webhookEndpoints", hasCustomer: false, create: newEndpoint },
  { path: "/webhook-deliveries", plural: "webhook_deliveries", connection: "webhookDeliveries", hasCustomer: false, create: testDelivery },
];

interface Connection {
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

describe.each(cases)("GET $path", ({ path, plural, connection, create, hasCustomer }) => {
  let m: Merchant;
  let ids: string[]; // newest first
  let customerId: string | undefined;

  beforeAll(async () => {
    m = await t.createMerchant();
    if (hasCustomer) customerId = (await t.api("POST", "/customers", { key: m.sandboxKey, body: { name: "x" } })).body.id;
    ids = [];
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1000);
      ids.unshift(await create(m, i === 0 ? customerId : undefined));
    }
  });

  const get = async (query = "") => {
    const res = await t.api("GET", `${path}${query}`, { key: m.sandboxKey });
    return res;
  };
  const idsOf = (body: any) => (body[plural] as { id: string }[]).map((x) => x.id);

  it("lists newest first under the plural key, with has_more", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["has_more", plural].sort());
    const listed = idsOf(res.body).filter((id) => ids.includes(id));
    expect(listed).toEqual(ids);
    expect(res.body.has_more).toBe(false);
  });

  it("pages with limit and starting_after / ending_before", async () => {
    const page1 = await get("?limit=2");
    expect(idsOf(page1.body)).toEqual(ids.slice(0, 2));
    expect(page1.body.has_more).toBe(true);
    const page2 = await get(`?limit=2&starting_after=${ids[1]}`);
    expect(idsOf(page2.body)).toEqual(ids.slice(2, 4));
    const back = await get(`?limit=2&ending_before=${ids[3]}`);
    expect(idsOf(back.body)).toEqual(ids.slice(1, 3));
    expect(back.body.has_more).toBe(true);
  });

  it.each([
    ["?limit=0", "limit must be at least 1"],
    ["?limit=101", "limit must be at most 100"],
    ["?starting_after=a&ending_before=b", "starting_after and ending_before are mutually exclusive"],
    ["?starting_after=zzz_unknown", "starting_after names no object of this list"],
  ])("refuses %s with 400", async (query, message) => {
    const res = await get(query);
    expect(res).toMatchObject({ status: 400, body: { error: message } });
  });

  it("shows nothing of the other environment or another organization", async () => {
    const live = await t.api("GET", path, { key: m.liveKey });
    expect(idsOf(live.body).filter((id) => ids.includes(id))).toEqual([]);
    const other = await t.createMerchant();
    expect(idsOf((await t.api("GET", path, { key: other.sandboxKey })).body)).toEqual([]);
  });

  if (hasCustomer) {
    it("filters by customer_id", async () => {
      const res = await get(`?customer_id=${customerId}`);
      expect(idsOf(res.body)).toEqual([ids[3]]);
    });
  }

  /** The GraphQL connection with these arguments (a JSON-ish argument list, e.g. `first: 2`). */
  const gql = async (args: string, variables: Record<string, unknown> = {}) => {
    const declared = Object.keys(variables).map((name) => `$${name}: String`);
    const query = `query${declared.length ? `(${declared.join(", ")})` : ""} {
      list: ${connection}(${args}) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
    }`;
    const res = await t.graphql(query, variables, m.sandboxKey);
    return res.body as { data?: { list: Connection }; errors?: { message: string }[] };
  };

  it("GraphQL's connection lists the same rows, and pages with first/after and last/before as REST with starting_after and ending_before", async () => {
    const all = (await gql("first: 10")).data!.list;
    expect(gqlIdsOf(all)).toEqual(idsOf((await get()).body));
    const cursorOf = (id: string) => all.edges.find((e) => e.node.id === id)!.cursor;

    const first = (await gql("first: 2")).data!.list;
    const page1 = await get("?limit=2");
    expect(gqlIdsOf(first)).toEqual(idsOf(page1.body));
    expect(first.pageInfo).toEqual({ hasNextPage: page1.body.has_more, hasPreviousPage: false, startCursor: cursorOf(ids[0]!), endCursor: cursorOf(ids[1]!) });

    const after = (await gql("first: 2, after: $c", { c: first.pageInfo.endCursor })).data!.list;
    const page2 = await get(`?limit=2&starting_after=${ids[1]}`);
    expect(gqlIdsOf(after)).toEqual(idsOf(page2.body));
    expect(after.pageInfo).toMatchObject({ hasNextPage: page2.body.has_more, hasPreviousPage: true });

    const back = (await gql("last: 2, before: $c", { c: cursorOf(ids[3]!) })).data!.list;
    const previous = await get(`?limit=2&ending_before=${ids[3]}`);
    expect(gqlIdsOf(back)).toEqual(idsOf(previous.body));
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: previous.body.has_more });

    // The oldest rows, and a page between two cursors.
    expect(gqlIdsOf((await gql("last: 2")).data!.list)).toEqual(ids.slice(2, 4));
    expect(gqlIdsOf((await gql("first: 5, after: $a, before: $b", { a: cursorOf(ids[0]!), b: cursorOf(ids[3]!) })).data!.list)).toEqual(ids.slice(1, 3));

    if (hasCustomer) expect(gqlIdsOf((await gql(`first: 10, customerId: "${customerId}"`)).data!.list)).toEqual([ids[3]]);
  });

  it("GraphQL refuses a cursor naming no row of the list as REST does, naming the argument", async () => {
    const unknown = Buffer.from("GPC:S:zzz_unknown").toString("base64");
    const res = await gql("first: 2, after: $c", { c: unknown });
    expect(res.errors).toEqual([expect.objectContaining({ message: "after names no object of this list" })]);
    const other = await t.createMerchant();
    const theirs = await t.graphql(`query($c: String) { ${connection}(last: 1, before: $c) { edges { node { id } } } }`, { c: (await gql("first: 1")).data!.list.edges[0]!.cursor }, other.sandboxKey);
    expect(theirs.body.errors).toEqual([expect.objectContaining({ message: "before names no object of this list" })]);
  });
});

describe("status filters", () => {
  it("payments, checkout sessions and invoices filter by status; payment links by active", async () => {
    const m = await t.createMerchant();
    const session = (await t.api("POST", "/checkout-sessions", { key: m.sandboxKey, body: { amount: "1" } })).body;
    const open = (await t.api("POST", "/checkout-sessions", { key: m.sandboxKey, body: { amount: "1" } })).body;
    await t.api("POST", `/payments/${session.payment_intent_id}/complete`, { key: m.sandboxKey });
    const q = async (path: string) => (await t.api("GET", path, { key: m.sandboxKey })).body;
    expect((await q("/checkout-sessions?status=complete")).checkout_sessions.map((s: any) => s.id)).toEqual([session.id]);
    expect((await q("/checkout-sessions?status=open")).checkout_sessions.map((s: any) => s.id)).toEqual([open.id]);
    expect((await q("/payments?status=completed")).payments.map((p: any) => p.id)).toEqual([session.payment_intent_id]);

    const draft = (await t.api("POST", "/invoices", { key: m.sandboxKey, body: { amount: "1" } })).body;
    const voided = (await t.api("POST", "/invoices", { key: m.sandboxKey, body: { amount: "1" } })).body;
    await t.api("POST", `/invoices/${voided.id}/void`, { key: m.sandboxKey });
    expect((await q("/invoices?status=draft")).invoices.map((i: any) => i.id)).toEqual([draft.id]);
    expect((await q("/invoices?status=void")).invoices.map((i: any) => i.id)).toEqual([voided.id]);

    const on = (await t.api("POST", "/payment-links", { key: m.sandboxKey, body: { amount: "1" } })).body;
    const off = (await t.api("POST", "/payment-links", { key: m.sandboxKey, body: { amount: "1" } })).body;
    await t.api("POST", `/payment-links/${off.id}/deactivate`, { key: m.sandboxKey });
    expect((await q("/payment-links?active=true")).payment_links.map((l: any) => l.id)).toEqual([on.id]);
    expect((await q("/payment-links?active=false")).payment_links.map((l: any) => l.id)).toEqual([off.id]);
  });

  it.each([
    ["/invoices?status=late", "status must be one of draft, open, paid, void"],
    ["/checkout-sessions?status=paid", "status must be one of open, complete, expired"],
    ["/payment-links?active=yes", "active must be one of true, false"],
  ])("refuses %s with 400", async (path, message) => {
    const m = await t.createMerchant();
    expect(await t.api("GET", path, { key: m.sandboxKey })).toMatchObject({ status: 400, body: { error: message } });
  });
});

describe("nested connections", () => {
  it("a customer's payments, a link's checkout sessions and an endpoint's deliveries page as the lists do, showing only theirs", async () => {
    const m = await t.createMerchant();
    const customer = await post(m, "/customers", { name: "n" });
    const link = await post(m, "/payment-links", { amount: "1" });
    const payments: string[] = [];
    const sessions: string[] = [];
    const deliveries: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      payments.unshift(await post(m, "/payments", { amount: "1", customer_id: customer }));
      const visit = await fetch(`${t.url}/c/${link}`, { redirect: "manual" });
      expect(visit.status).toBe(303);
      sessions.unshift(new URL(visit.headers.get("location")!).pathname.split("/").pop()!);
      deliveries.unshift(await testDelivery(m));
    }
    const endpoint = await endpointOf.get(m)!;
    // Rows of the same merchant that are not theirs.
    await post(m, "/payments", { amount: "1" });
    await post(m, "/checkout-sessions", { amount: "1" });
    await t.api("POST", `/webhook-endpoints/${await newEndpoint(m)}/test`, { key: m.sandboxKey });

    for (const [parent, id, field, expected] of [
      ["customer", customer, "payments", payments],
      ["paymentLink", link, "checkoutSessions", sessions],
      ["webhookEndpoint", endpoint, "deliveries", deliveries],
    ] as const) {
      const page = async (args: string) => {
        const query = `query($id: ID!) { parent: ${parent}(id: $id) {
          list: ${field}(${args}) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage } } } }`;
        const res = await t.graphql(query, { id }, m.sandboxKey);
        expect(res.body.errors, `${parent}.${field}(${args})`).toBeUndefined();
        return res.body.data.parent.list as Connection;
      };
      const first = await page("first: 2");
      expect(gqlIdsOf(first), field).toEqual(expected.slice(0, 2));
      expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false });
      const rest = await page(`first: 2, after: "${first.edges[1]!.cursor}"`);
      expect(gqlIdsOf(rest), field).toEqual(expected.slice(2));
      expect(rest.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
      const back = await page(`last: 1, before: "${rest.edges[0]!.cursor}"`);
      expect(gqlIdsOf(back), field).toEqual([expected[1]]);
      expect(back.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true });
    }
  });
});

const gqlIdsOf = (c: Connection) => c.edges.map((e) => e.node.id);

describe("GraphQL list nodes", () => {
  it("carry their relations: an invoice's customer, items, payment and session; a session's payment; a delivery's endpoint and attempts", async () => {
    const m = await t.createMerchant();
    const customer = await post(m, "/customers", { name: "Rel" });
    const invoice = await post(m, "/invoices", {
      customer_id: customer,
      items: [{ description: "Tea", quantity: "2", unit_amount: "1.5" }],
    });
    const finalized = await t.api("POST", `/invoices/${invoice}/finalize`, { key: m.sandboxKey });
    expect(finalized.status).toBe(200);
    const session = await post(m, "/checkout-sessions", { amount: "4", customer_id: customer });
    const delivery = await testDelivery(m);
    const res = await t.graphql(
      `{
        invoices(first: 5) { edges { node { id customer { name } items { description quantity unitAmount } payment { amount }
          checkoutSession { id } settlementAsset { assetCode } } } }
        checkoutSessions(first: 5) { edges { node { id amount paymentStatus customer { name } payment { id } } } }
        webhookDeliveries(first: 5) { edges { node { id endpoint { id } attempts { number } } } }
        payments(first: 10) { edges { node { id customer { name } } } }
      }`,
      {},
      m.sandboxKey,
    );
    expect(res.body.errors).toBeUndefined();
    const { invoices, checkoutSessions, webhookDeliveries, payments } = res.body.data;
    const invoiceSession = finalized.body.invoice.checkout_session_id;
    expect(invoices.edges.map((e: any) => e.node)).toEqual([
      {
        id: invoice,
        customer: { name: "Rel" },
        items: [{ description: "Tea", quantity: "2", unitAmount: "1.5000000" }],
        payment: { amount: "3.0000000" },
        checkoutSession: { id: invoiceSession },
        settlementAsset: { assetCode: "XLM" },
      },
    ]);
    expect(checkoutSessions.edges[0].node).toMatchObject({ id: session, amount: "4.0000000", paymentStatus: "pending", customer: { name: "Rel" } });
    expect(checkoutSessions.edges).toHaveLength(2);
    const endpoint = await endpointOf.get(m)!;
    expect(webhookDeliveries.edges.map((e: any) => e.node)).toEqual([{ id: delivery, endpoint: { id: endpoint }, attempts: expect.any(Array) }]);
    const customerOf = Object.fromEntries(payments.edges.map((e: any) => [e.node.id, e.node.customer?.name ?? null]));
    const sessionPayment = checkoutSessions.edges[0].node.payment.id;
    expect(customerOf[sessionPayment]).toBe("Rel");
  });
});
