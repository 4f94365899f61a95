// The payments search as a merchant types it (#27 item 8, src/modules/payments/payment-search.ts),
// through GraphQL on a real database: each kind of match, several words, the scope (another
// organization, the other environment), the list's filters and paging, a customer renamed after the
// payment, and input that must be taken literally or refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let stranger: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  stranger = await t.createMerchant();
});
afterAll(() => t.close());

const HASH = "9f3c".repeat(16);

interface Created {
  id: string;
  createdAt: string;
}

async function createPayment(body: Record<string, unknown>, key = merchant.sandboxKey): Promise<Created> {
  const res = await t.api("POST", "/payments", { key, body: { amount: "1", ...body } });
  expect(res.status, res.raw).toBe(201);
  t.clock.advance(1000); // distinct creation times: the expected order is the creation order
  return { id: res.body.id, createdAt: res.body.created_at };
}

async function createCustomer(body: Record<string, unknown>): Promise<string> {
  const res = await t.api("POST", "/customers", { key: merchant.sandboxKey, body });
  expect(res.status, res.raw).toBe(201);
  return res.body.id as string;
}

/** payments(search:) and its other arguments: the ids found, newest first, or the errors. */
async function search(text: string, args = "", key = merchant.sandboxKey, variables: Record<string, unknown> = {}) {
  const declared = ["$s: String", ...Object.keys(variables).map((name) => `$${name}: ${name === "from" ? "DateTime" : "String"}`)];
  const res = await t.graphql(
    `query(${declared.join(", ")}) { payments(search: $s ${args}) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`,
    { s: text, ...variables },
    key,
  );
  return {
    ids: (res.body.data?.payments.edges.map((e: { node: { id: string } }) => e.node.id) ?? []) as string[],
    next: res.body.data?.payments.pageInfo as { hasNextPage: boolean; endCursor: string } | undefined,
    errors: res.body.errors as { message: string; extensions?: unknown }[] | undefined,
  };
}
const found = async (text: string, args?: string, key?: string) => {
  const result = await search(text, args, key);
  expect(result.errors).toBeUndefined();
  return result.ids;
};

let coffee: Created, tea: Created, big: Created, renamed: Created, hashed: Created, other: Created;
let aliceId: string;

describe("payments(search:)", () => {
  beforeAll(async () => {
    aliceId = await createCustomer({ name: "Alice Martin", email: "alice@example.com" });
    coffee = await createPayment({ amount: "12.5", description: "Coffee beans, Ethiopia", metadata: { order_ref: "ORD-778812" } });
    tea = await createPayment({ amount: "3", description: "Green tea 100% leaf_pack" });
    big = await createPayment({ amount: "1234.5678", description: "Espresso machine", customer_id: aliceId });
    renamed = await createPayment({ amount: "7", description: "Gift card", customer_id: aliceId });
    hashed = await createPayment({ amount: "2", description: "Coffee grinder" });
    const done = await t.graphql(`mutation($id: ID!, $h: String) { markPaymentCompleted(id: $id, txHash: $h) { txHash } }`, { id: hashed.id, h: HASH }, merchant.sandboxKey);
    expect(done.body.errors).toBeUndefined();
    // another organization's payment with the same words, and this merchant's production payment
    other = await createPayment({ amount: "12.5", description: "Coffee beans" }, stranger.sandboxKey);
  });

  it("finds the start of a word of the description, in any case, newest first", async () => {
    expect(await found("coffee")).toEqual([hashed.id, coffee.id]);
    expect(await found("CoF")).toEqual([hashed.id, coffee.id]);
    expect(await found("ethio")).toEqual([coffee.id]);
    // a word longer than the terms' prefixes is checked whole on the row
    expect(await found("espresso")).toEqual([big.id]);
    expect(await found("espressos")).toEqual([]);
    // the start of a word, not its middle
    expect(await found("offee")).toEqual([]);
  });

  it("finds a word by its start from three characters; one or two characters find whole words only", async () => {
    expect(await found("gre")).toEqual([tea.id]);
    // "gr" starts "green" and "grinder", but is no whole word of any payment
    expect(await found("gr")).toEqual([]);
    // the amounts 3 and 2 are whole words; "10" only starts the tea's "100"
    expect(await found("3")).toEqual([tea.id]);
    expect(await found("2")).toEqual([hashed.id]);
    expect(await found("10")).toEqual([]);
    expect(await found("100")).toEqual([tea.id]);
  });

  it("finds the start of the id with or without pay_, and the whole id", async () => {
    for (const text of [coffee.id, coffee.id.slice(0, 14), coffee.id.slice(4, 14), coffee.id.toLowerCase().slice(0, 20)]) {
      expect(await found(text), text).toContain(coffee.id);
    }
    // the id's random end is distinct: its whole finds that payment only
    expect(await found(coffee.id)).toEqual([coffee.id]);
    expect(await found(coffee.id.slice(4))).toEqual([coffee.id]);
  });

  it("finds the start of the transaction hash and the whole hash", async () => {
    expect(await found(HASH)).toEqual([hashed.id]);
    expect(await found(HASH.slice(0, 6))).toEqual([hashed.id]);
    expect(await found(HASH.slice(0, 30).toUpperCase())).toEqual([hashed.id]);
    expect(await found(`${HASH.slice(0, 30)}0`)).toEqual([]);
  });

  it("finds an amount in the payment's asset as typed", async () => {
    expect(await found("12.5")).toEqual([coffee.id]);
    expect(await found("12.5000000")).toEqual([coffee.id]);
    expect(await found("1234.5678")).toEqual([big.id]);
    expect(await found("3.0")).toEqual([tea.id]);
    expect(await found("12.55")).toEqual([]);
  });

  it("finds a metadata value and a customer's name or email", async () => {
    expect(await found("ORD-778812")).toEqual([coffee.id]);
    expect(await found("778812")).toEqual([coffee.id]);
    expect(await found("ali")).toEqual([renamed.id, big.id]);
    expect(await found("alice@example.com")).toEqual([renamed.id, big.id]);
    expect(await found("martin")).toEqual([renamed.id, big.id]);
  });

  it("needs every word: description, amount and customer words together", async () => {
    expect(await found("coffee beans")).toEqual([coffee.id]);
    expect(await found("beans coffee 12.5")).toEqual([coffee.id]);
    expect(await found("alice gift")).toEqual([renamed.id]);
    expect(await found("alice coffee")).toEqual([]);
  });

  it("sees the customer's current name, not the one when the payment was made", async () => {
    const res = await t.api("POST", `/customers/${aliceId}`, { key: merchant.sandboxKey, body: { name: "Alicia Keys" } });
    expect(res.status, res.raw).toBe(200);
    expect(await found("keys")).toEqual([renamed.id, big.id]);
    expect(await found("martin")).toEqual([]);
    await t.api("POST", `/customers/${aliceId}`, { key: merchant.sandboxKey, body: { name: "Alice Martin" } });
  });

  it("never finds another organization's payment nor the other environment's", async () => {
    expect(await found("coffee beans")).not.toContain(other.id);
    expect(await found(other.id)).toEqual([]);
    expect(await found("coffee", "", stranger.sandboxKey)).toEqual([other.id]);
    const live = await createPayment({ description: "Coffee live" }, merchant.liveKey);
    expect(await found("coffee")).toEqual([hashed.id, coffee.id]);
    expect(await found("coffee", "", merchant.liveKey)).toEqual([live.id]);
  });

  it("keeps the list's other filters", async () => {
    expect(await found("coffee", ", status: completed")).toEqual([hashed.id]);
    expect(await found("coffee", ", status: pending")).toEqual([coffee.id]);
    expect(await found("ali", `, customerId: "${aliceId}"`)).toEqual([renamed.id, big.id]);
    const since = await search("coffee", ", createdFrom: $from", merchant.sandboxKey, { from: new Date(Date.parse(tea.createdAt)).toISOString() });
    expect(since.ids).toEqual([hashed.id]);
  });

  it("takes %, _, quotes and backslashes literally, and refuses a search too long to be one", async () => {
    for (const text of ["%", "_", "%%", "'", "\"", "\\", "'; DROP TABLE x; --", "100%", "leaf_pack", "e%s"]) {
      const result = await search(text);
      expect(result.errors, text).toBeUndefined();
      if (text === "100%" || text === "leaf_pack") expect(result.ids, text).toEqual([tea.id]);
      else expect(result.ids, text).toEqual([]);
    }
    const tooLong = await search("a".repeat(500));
    expect(tooLong.errors?.[0]?.message).toBe("Search: must be at most 200 characters");
    const tooMany = await search("a b c d e f g h i");
    expect(tooMany.errors?.[0]?.message).toBe("Search: must have at most 8 words");
  });

  it("pages through the results, forwards and backwards", async () => {
    const many: string[] = [];
    for (let i = 0; i < 7; i++) many.unshift((await createPayment({ description: `Pagination test ${i}` })).id);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await search("pagination", `, first: 3${after ? `, after: "${after}"` : ""}`);
      expect(page.errors).toBeUndefined();
      seen.push(...page.ids);
      if (!page.next!.hasNextPage) break;
      after = page.next!.endCursor;
    }
    expect(seen).toEqual(many);
    const last = await t.graphql(`{ payments(search: "pagination test", last: 2) { edges { node { id } } } }`, undefined, merchant.sandboxKey);
    expect(last.body.data.payments.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(many.slice(-2));
  });
});
