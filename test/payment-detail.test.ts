// The dashboard's payments screen over GraphQL: the list's creation range and search by id or
// transaction hash, a payment's timeline and webhook deliveries, and the reason of a manual completion.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";

let t: TestApp;
let merchant: Merchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const gql = async (query: string, variables?: Record<string, unknown>, key = merchant.sandboxKey) => (await t.graphql(query, variables, key)).body;

const createPayment = async (key = merchant.sandboxKey) => {
  const res = await gql(`mutation { createPayment(input: { amount: "2" }) { id createdAt } }`, undefined, key);
  expect(res.errors).toBeUndefined();
  return res.data.createPayment as { id: string; createdAt: string };
};

const HASH = "ab".repeat(32);
const DAY = 24 * 3600 * 1000;

const VARIABLE_TYPES: Record<string, string> = { from: "DateTime", to: "DateTime", search: "String" };

/** The ids of payments(first: 50, `args`), the variables declared as the arguments use them. */
const listIds = async (args: string, variables: Record<string, unknown>) => {
  const declared = Object.keys(variables).map((name) => `$${name}: ${VARIABLE_TYPES[name]}`);
  const res = await gql(`query(${declared.join(", ")}) { payments(first: 50, ${args}) { edges { node { id } } } }`, variables);
  expect(res.errors).toBeUndefined();
  return res.data.payments.edges.map((e: { node: { id: string } }) => e.node.id) as string[];
};

describe("payments(createdFrom, createdTo, search)", () => {
  it("keeps the payments created in [createdFrom, createdTo), and finds one by id or transaction hash", async () => {
    const old = await createPayment();
    t.clock.advance(2 * DAY);
    const middle = await createPayment();
    t.clock.advance(2 * DAY);
    const recent = await createPayment();
    const stranger = await createPayment((await t.createMerchant()).sandboxKey);

    const at = (p: { createdAt: string }, shiftMs = 0) => new Date(Date.parse(p.createdAt) + shiftMs).toISOString();
    expect(await listIds(`createdFrom: $from`, { from: at(middle) })).toEqual([recent.id, middle.id]);
    // the upper bound excludes its own instant
    expect(await listIds(`createdTo: $to`, { to: at(middle) })).toEqual([old.id]);
    expect(await listIds(`createdFrom: $from, createdTo: $to`, { from: at(old, 1), to: at(recent) })).toEqual([middle.id]);

    expect(await listIds(`search: $search`, { search: ` ${middle.id} ` })).toEqual([middle.id]);
    expect(await listIds(`search: $search`, { search: stranger.id })).toEqual([]);
    expect(await listIds(`search: $search`, { search: "pay_nothing" })).toEqual([]);
    const done = await gql(`mutation($id: ID!, $h: String) { markPaymentCompleted(id: $id, txHash: $h) { txHash } }`, { id: old.id, h: HASH });
    expect(done.errors).toBeUndefined();
    expect(await listIds(`search: $search`, { search: HASH })).toEqual([old.id]);
    // with the other filters: a search that matches but is out of range finds nothing
    expect(await listIds(`search: $search, createdFrom: $from`, { search: HASH, from: at(middle) })).toEqual([]);
    // paging goes on with the same filters
    const first = await gql(`query($from: DateTime) { payments(first: 1, createdFrom: $from) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`, {
      from: at(old),
    });
    expect(first.data.payments.edges[0].node.id).toBe(recent.id);
    const next = await gql(`query($from: DateTime, $after: String) { payments(first: 5, createdFrom: $from, after: $after) { edges { node { id } } } }`, {
      from: at(middle),
      after: first.data.payments.pageInfo.endCursor,
    });
    expect(next.data.payments.edges.map((e: any) => e.node.id)).toEqual([middle.id]);
    // a period and a cursor together (list-page.ts makes them one range): both bound the page
    const page = async (args: string, variables: Record<string, unknown>) => {
      const declared = Object.keys(variables).map((name) => `$${name}: ${name === "c" ? "String" : VARIABLE_TYPES[name]}`);
      return gql(`query(${declared.join(", ")}) { payments(${args}) { edges { node { id } } } }`, variables);
    };
    const cursor = (p: { id: string }) => Buffer.from(`GPC:S:${p.id}`, "latin1").toString("base64");
    const ids = (res: any) => res.data.payments.edges.map((e: any) => e.node.id);
    expect(ids(await page("first: 5, createdTo: $to, after: $c", { to: at(recent), c: cursor(middle) }))).toEqual([old.id]);
    expect(ids(await page("last: 5, createdFrom: $from, before: $c", { from: at(old, 1), c: cursor(middle) }))).toEqual([recent.id]);
    expect(ids(await page("last: 5, createdFrom: $from, createdTo: $to, before: $c", { from: at(old), to: at(recent), c: cursor(old) }))).toEqual([middle.id]);
    // a cursor outside the period names no row of that list
    const outside = await page("first: 5, createdFrom: $from, after: $c", { from: at(middle), c: cursor(old) });
    expect(outside.errors[0].message).toBe("after names no object of this list");
  });

  it("rejects a date that is not ISO 8601 and changes nothing", async () => {
    const res = await gql(`{ payments(createdFrom: "yesterday") { edges { node { id } } } }`);
    expect(res.errors[0].message).toContain("DateTime must be an ISO 8601 date-time");
  });
});

describe("Payment.events and Payment.webhookDeliveries", () => {
  it("shows the payment's events oldest first and the deliveries of those events with their endpoints", async () => {
    const endpoint = await t.api("POST", "/webhook-endpoints", {
      key: merchant.sandboxKey,
      body: { url: `${receiver.url}/detail`, enabled_events: ["payment.created", "payment.completed"] },
    });
    expect(endpoint.status).toBe(201);
    const payment = await createPayment();
    t.clock.advance(1000);
    await gql(`mutation($id: ID!) { markPaymentCompleted(id: $id, reason: "paid by bank transfer") { id } }`, { id: payment.id });
    await t.app.webhooks.runOnce();
    const other = await createPayment();

    const res = await gql(
      `query($id: ID!) { payment(id: $id) { manualCompletionReason events { id type createdAt }
        webhookDeliveries { id event status endpointId endpoint { url } } } }`,
      { id: payment.id },
    );
    expect(res.errors).toBeUndefined();
    const detail = res.data.payment;
    expect(detail.manualCompletionReason).toBe("paid by bank transfer");
    expect(detail.events.map((e: any) => e.type)).toEqual(["payment.created", "payment.completed"]);
    expect(Date.parse(detail.events[0].createdAt)).toBeLessThan(Date.parse(detail.events[1].createdAt));
    expect(detail.webhookDeliveries).toEqual([
      expect.objectContaining({ event: "payment.created", status: "succeeded", endpointId: endpoint.body.id, endpoint: { url: `${receiver.url}/detail` } }),
      expect.objectContaining({ event: "payment.completed", status: "succeeded", endpointId: endpoint.body.id }),
    ]);
    // another payment's events are not this one's
    const otherDetail = await gql(`query($id: ID!) { payment(id: $id) { events { type } webhookDeliveries { id } } }`, { id: other.id });
    expect(otherDetail.data.payment).toEqual({ events: [{ type: "payment.created" }], webhookDeliveries: [] });
  });
});

describe("markPaymentCompleted(reason)", () => {
  it("keeps the reason, trimmed; REST's completion has none", async () => {
    const payment = await createPayment();
    const res = await gql(`mutation($id: ID!) { markPaymentCompleted(id: $id, reason: "  cash at the counter ") { status manualCompletionReason } }`, {
      id: payment.id,
    });
    expect(res.data.markPaymentCompleted).toEqual({ status: "completed", manualCompletionReason: "cash at the counter" });
    const viaRest = await createPayment();
    const rest = await t.api("POST", `/payments/${viaRest.id}/complete`, { key: merchant.sandboxKey, body: {} });
    expect(rest.status).toBe(200);
    expect(rest.body).not.toHaveProperty("manual_completion_reason");
    const read = await gql(`query($id: ID!) { payment(id: $id) { manualCompletionReason } }`, { id: viaRest.id });
    expect(read.data.payment.manualCompletionReason).toBeNull();
  });

  it("rejects an empty or overlong reason naming the field, and the payment stays pending", async () => {
    const payment = await createPayment();
    for (const [reason, message] of [
      ["   ", "Reason: must not be empty"],
      ["x".repeat(501), "Reason: must be at most 500 characters"],
    ]) {
      const res = await gql(`mutation($id: ID!, $r: String) { markPaymentCompleted(id: $id, reason: $r) { id } }`, { id: payment.id, r: reason });
      expect(res.errors[0]).toMatchObject({ message, extensions: { code: "BAD_REQUEST" } });
    }
    const read = await gql(`query($id: ID!) { payment(id: $id) { status manualCompletionReason } }`, { id: payment.id });
    expect(read.data.payment).toEqual({ status: "pending", manualCompletionReason: null });
  });
});
