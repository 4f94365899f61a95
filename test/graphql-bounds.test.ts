// Issue 13's GraphQL findings: bounds on what one operation may ask (finding 1), the stream door's
// body limit, reservations and stream cap (finding 6), cursors, introspection, suggestions and CORS
// (finding 7). Each refusal is checked to happen before execution: a refused mutation creates nothing.
// Issue 30: one stream policy for every door (subscriptions only at /graphql/stream, capped there).
import { CLAIM_OPERATIONS } from "../checkout-ui/claim/api.ts";
import { CHECKOUT_OPERATIONS } from "../checkout-ui/src/api.ts";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateWithinBounds } from "../src/gate/graphql-bounds.ts";
import { schema } from "../src/graphql/schema.ts";
import { RESERVATION_LIMITS } from "../src/graphql/sse-limits.ts";
import { type SseSubscription, subscribeSse } from "./support/sse.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
/** CORS_ORIGINS set, NODE_ENV=development, and a stream cap of 3 per address */
let configured: TestApp;
const open: SseSubscription[] = [];

beforeAll(async () => {
  [t, configured] = await Promise.all([
    startTestApp(),
    startTestApp({ env: { CORS_ORIGINS: "https://shop.example.com", NODE_ENV: "development", SSE_STREAMS_PER_ADDRESS: "3" } }),
  ]);
  merchant = await t.createMerchant();
});
afterAll(async () => {
  open.forEach((s) => s.close());
  await Promise.all([t.close(), configured.close()]);
});

const VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED";

/**
 * `count` fields down the type graph's loop (payments -> edges -> node -> customer -> payments ...),
 * starting at `steps[0]`, then __typename: count + 1 levels deep.
 */
function loop(steps: string[], count: number): string {
  let selection = "__typename";
  for (let level = count - 1; level >= 0; level--) selection = `${steps[level % steps.length]} { ${selection} }`;
  return selection;
}
const FROM_QUERY = ["payments", "edges", "node", "customer"];

const customerCount = () => t.database.db.customer.count();

describe("finding 1: a deep query is refused before execution", () => {
  it("finding 1: a 27-level query (payments -> customer -> payments ...) is refused before execution", async () => {
    const before = await customerCount();
    // createCustomer, then 25 fields of the loop from a customer, then __typename: 27 levels.
    const res = await t.graphql(`mutation { createCustomer(input: { name: "Deep" }) { ${loop(FROM_QUERY, 25)} } }`, {}, merchant.sandboxKey);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0]).toEqual({ message: "Query depth limit of 10 exceeded, found 27.", extensions: { code: VALIDATION_FAILED } });
    expect(await customerCount()).toBe(before);
  });

  it("finding 1: a 19-level query is refused, and one of 10 levels with small pages is answered", async () => {
    const deep = await t.graphql(`{ ${loop(FROM_QUERY, 18)} }`, {}, merchant.sandboxKey);
    expect(deep.body.errors[0]).toMatchObject({ message: "Query depth limit of 10 exceeded, found 19.", extensions: { code: VALIDATION_FAILED } });
    const fine = await t.graphql(`{ ${loop(["payments(first: 3)", "edges", "node", "customer"], 9)} }`, {}, merchant.sandboxKey);
    expect(fine.body.errors).toBeUndefined();
    expect(fine.body.data.payments.edges).toBeInstanceOf(Array);
  });
});

describe("finding 1: aliases and cost", () => {
  it("finding 1: 1,000 aliases of payments(first: 100) are refused before execution", async () => {
    const before = await customerCount();
    const aliases = Array.from({ length: 1000 }, (_, i) => `a${i}: payments(first: 100) { edges { node { id } } }`).join(" ");
    const res = await t.graphql(`{ ${aliases} }`, {}, merchant.sandboxKey);
    expect(res.body.errors).toEqual([{ message: "Token limit of 2000 exceeded.", extensions: { code: VALIDATION_FAILED } }]);
    const fewer = Array.from({ length: 16 }, (_, i) => `a${i}: createCustomer(input: { name: "Alias" }) { id }`).join(" ");
    const res16 = await t.graphql(`mutation { ${fewer} }`, {}, merchant.sandboxKey);
    expect(res16.body.errors[0]).toMatchObject({ message: "Aliases limit of 15 exceeded, found 16.", extensions: { code: VALIDATION_FAILED } });
    expect(await customerCount()).toBe(before);
  });

  it("finding 1: 1,000 anonymous checkout(id:) aliases are refused", async () => {
    const aliases = Array.from({ length: 1000 }, (_, i) => `c${i}: checkout(id: "pay_${i}") { state }`).join(" ");
    const res = await t.graphql(`{ ${aliases} }`);
    expect(res.body.errors).toEqual([{ message: "Token limit of 2000 exceeded.", extensions: { code: VALIDATION_FAILED } }]);
    const sixteen = Array.from({ length: 16 }, (_, i) => `c${i}: checkout(id: "pay_${i}") { state }`).join(" ");
    expect((await t.graphql(`{ ${sixteen} }`)).body.errors[0].message).toBe("Aliases limit of 15 exceeded, found 16.");
  });

  it("finding 1: two nested pages of 100 are refused by cost, also with the sizes as variables", async () => {
    for (const [query, variables] of [
      [`{ payments(first: 100) { edges { node { customer { payments(first: 100) { edges { node { id } } } } } } } }`, {}],
      [`query ($n: Int) { payments(first: $n) { edges { node { customer { payments(first: $n) { edges { node { id } } } } } } } }`, { n: 100 }],
    ] as const) {
      const res = await t.graphql(query, variables, merchant.sandboxKey);
      expect(res.body.errors[0]).toMatchObject({ extensions: { code: VALIDATION_FAILED } });
      expect(res.body.errors[0].message).toMatch(/^Query Cost limit of 50000 exceeded, found \d+/);
    }
  });
});

describe("finding 1: ordinary work still answers", () => {
  // The public pages' operations (the checkout and the refund claim page), as the pages send them.
  const CHECKOUT_PAGE = [...Object.values(CHECKOUT_OPERATIONS), ...Object.values(CLAIM_OPERATIONS)];
  const PAYMENT_FIELDS = `id amount status description metadata checkoutUrl sourceType customerId payerAddress txHash confirmedAt
    expiresAt createdAt amountReceived late failureReason pricingCurrency pricingAmount
    settlementAsset { assetCode issuerAddress } allowedAssets { assetCode issuerAddress } paidAsset { assetCode issuerAddress }`;
  const DASHBOARD = `query ($after: String) {
    payments(first: 100, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges { cursor node { ${PAYMENT_FIELDS} customer { id name email } } }
    }
    customers(first: 10) { edges { node { id name payments(first: 10) { edges { node { id status amount } } } } } }
  }`;

  it("finding 1: the checkout page's operations pass the bounds as an anonymous caller", async () => {
    for (const operation of CHECKOUT_PAGE) expect(validateWithinBounds(schema, parse(operation), "anonymous")).toEqual([]);
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "3" } });
    const query = await t.graphql(CHECKOUT_OPERATIONS.load, { id: payment.body.id });
    expect(query.body.errors).toBeUndefined();
    expect(query.body.data.checkout).toMatchObject({ id: payment.body.id, state: "open" });
    const sub = await subscribeSse(t.url, CHECKOUT_OPERATIONS.watch, { id: payment.body.id });
    open.push(sub);
    expect((await sub.next()).data.checkout).toMatchObject({ id: payment.body.id, state: "open" });
    sub.close();
  });

  it("finding 1: a dashboard's page of 100 payments with their customers, and customers with their payments, is answered", async () => {
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Dash" } });
    for (let i = 0; i < 3; i++) {
      await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", customer_id: customer.body.id } });
    }
    const res = await t.graphql(DASHBOARD, {}, merchant.sandboxKey);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.payments.edges[0].node.customer).toEqual({ id: customer.body.id, name: "Dash", email: null });
    expect(res.body.data.customers.edges[0].node.payments.edges).toHaveLength(3);
  });
});

describe("finding 7: introspection, suggestions and CORS", () => {
  const INTROSPECTION = `{ __schema { queryType { name } } }`;

  it("finding 7: introspection is refused to anonymous callers in production and answered with a key", async () => {
    const anonymous = await t.graphql(INTROSPECTION);
    expect(anonymous.body.data).toBeUndefined();
    expect(anonymous.body.errors[0]).toMatchObject({ extensions: { code: VALIDATION_FAILED } });
    expect(anonymous.body.errors[0].message).toMatch(/introspection has been disabled/);
    expect((await t.graphql(`{ __type(name: "Payment") { name } }`)).body.errors[0].extensions.code).toBe(VALIDATION_FAILED);
    expect((await t.graphql(INTROSPECTION, {}, merchant.sandboxKey)).body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    // The same over the stream door.
    const sub = await subscribeSse(t.url, INTROSPECTION);
    open.push(sub);
    expect((await sub.next()).errors[0].message).toMatch(/introspection has been disabled/);
    // NODE_ENV=development keeps it open.
    expect((await configured.graphql(INTROSPECTION)).body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
  });

  it("finding 7: no field suggestions for anonymous callers in production", async () => {
    const query = `{ checkot(id: "pay_x") { state } }`;
    const anonymous = await t.graphql(query);
    expect(anonymous.body.errors[0].message).toBe('Cannot query field "checkot" on type "Query". [Suggestion hidden]');
    const withKey = await t.graphql(query, {}, merchant.sandboxKey);
    expect(withKey.body.errors[0].message).toBe('Cannot query field "checkot" on type "Query". Did you mean "checkout"?');
    // Variables are checked as the operation executes: their errors keep the names to themselves too.
    const variables = `mutation ($asset: AssetRefInput!) { prepareCheckoutTransaction(paymentId: "pay_x", payerAddress: "G", payAsset: $asset) { xdr } }`;
    const badVariable = await t.graphql(variables, { asset: { assetCod: "XLM" } });
    const messages = (res: { body: { errors: { message: string }[] } }) => res.body.errors.map((e) => e.message).join(" ");
    expect(messages(badVariable)).toMatch(/"assetCod" is not defined by type "AssetRefInput"\. \[Suggestion hidden\]/);
    expect(messages(await t.graphql(variables, { asset: { assetCod: "XLM" } }, merchant.sandboxKey))).toMatch(/Did you mean "assetCode"\?/);
    const sub = await subscribeSse(t.url, `subscription { checkot(id: "pay_x") { state } }`);
    open.push(sub);
    expect((await sub.next()).errors[0].message).toBe('Cannot query field "checkot" on type "Subscription". [Suggestion hidden]');
  });

  // What yoga's graphql-sse plugin does not do (README, "SSE server"): it answered this 500 with the
  // parser's stack trace, and an invalid operation 400 "Unable to detect operation AST".
  it("a stream's operation that does not parse is answered with the parser's message, no stack", async () => {
    const sub = await subscribeSse(t.url, `subscription { checkout(id: "pay_x") { state }`);
    open.push(sub);
    expect(sub.status).toBe(200);
    expect((await sub.next()).errors).toEqual([{ message: "Syntax Error: Expected Name, found <EOF>.", locations: [{ line: 1, column: 47 }] }]);
    expect(sub.frames.map((frame) => frame.raw).join("\n")).not.toMatch(/\bat |node_modules/);
  });

  it("finding 7: CORS on /graphql and /graphql/stream answers only configured origins, none by default", async () => {
    const preflight = (app: TestApp, origin: string, path = "/graphql") =>
      fetch(`${app.url}${path}`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,authorization" },
      });
    const post = (app: TestApp, origin: string) =>
      fetch(`${app.url}/graphql`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: '{"query":"{ __typename }"}' });

    for (const res of [
      await preflight(t, "https://evil.example"),
      await post(t, "https://evil.example"),
      await post(configured, "https://evil.example"),
      await preflight(configured, "https://evil.example", "/graphql/stream"),
      await preflight(t, "https://shop.example.com", "/graphql/stream"),
    ]) {
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    }
    const allowed = await preflight(configured, "https://shop.example.com");
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(allowed.headers.get("access-control-allow-headers")).toBe("content-type,authorization");
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();
    expect((await post(configured, "https://shop.example.com")).headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    const stream = await preflight(configured, "https://shop.example.com", "/graphql/stream");
    expect(stream.status).toBe(204);
    expect(stream.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
  });
});

describe("finding 7: connection cursors", () => {
  it("finding 7: bad cursors are BAD_USER_INPUT with a short message that does not echo them", async () => {
    const base64 = (text: string) => Buffer.from(text).toString("base64");
    const cursors = [base64("GPC:D:x"), base64("GPC:J:{}"), base64("GPC:N:1e999"), base64("GPC:S:" + "x".repeat(100_000)), "y".repeat(100_000)];
    for (const after of cursors) {
      const res = await t.graphql(`query ($after: String) { payments(after: $after) { edges { node { id } } } }`, { after }, merchant.sandboxKey);
      expect(res.body.errors).toEqual([expect.objectContaining({ message: "after is not a cursor of this list", extensions: { code: "BAD_USER_INPUT" } })]);
    }
    const before = await t.graphql(`{ customers(last: 1, before: "${base64("GPC:J:{}")}") { edges { node { id } } } }`, {}, merchant.sandboxKey);
    expect(before.body.errors[0]).toMatchObject({ message: "before is not a cursor of this list", extensions: { code: "BAD_USER_INPUT" } });
  });

  it("finding 7: a cursor the list handed out still pages", async () => {
    for (let i = 0; i < 2; i++) await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "2" } });
    const page = `query ($after: String) { payments(first: 1, after: $after) { edges { cursor node { id } } } }`;
    const first = (await t.graphql(page, {}, merchant.sandboxKey)).body.data.payments.edges[0];
    const second = (await t.graphql(page, { after: first.cursor }, merchant.sandboxKey)).body.data.payments.edges[0];
    expect(second.node.id).not.toBe(first.node.id);
  });
});

describe("finding 6: /graphql/stream", () => {
  it("finding 6: /graphql/stream answers 413 to a body over 1 MiB, as /graphql does", async () => {
    const body = JSON.stringify({ query: `{ __typename }`, variables: { padding: "x".repeat(1024 * 1024) } });
    const stream = await fetch(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body,
    });
    expect(stream.status).toBe(413);
    expect(await stream.json()).toEqual({ error: "Request body is larger than 1 MiB" });
    const graphql = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(graphql.status).toBe(413);
    // The Web-standard door (app.fetch) applies the same limit: yoga's own is off (#29), each door reads within this one.
    for (const declared of [true, false]) {
      const headers = { "content-type": "application/json", ...(declared ? { "content-length": String(Buffer.byteLength(body)) } : {}) };
      const inProcess = await t.app.fetch(new Request("http://pay.example.test/graphql", { method: "POST", headers, body }));
      expect(inProcess.status).toBe(413);
      expect(await inProcess.json()).toEqual({ error: "Request body is larger than 1 MiB" });
    }
    const small = await t.app.fetch(
      new Request("http://pay.example.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }" }) }),
    );
    expect(await small.json()).toEqual({ data: { __typename: "Query" } });
    // Under the limit the stream answers.
    const sub = await subscribeSse(t.url, `{ __typename }`, { padding: "x".repeat(1000) });
    open.push(sub);
    expect(await sub.next()).toEqual({ data: { __typename: "Query" } });
  });

  it("finding 6: single connection reservations are capped per address, expire, and carry random UUID tokens", async () => {
    // A token the client sends along is not the reservation's: the server picks it.
    const reserve = () => fetch(`${t.url}/graphql/stream`, { method: "PUT", headers: { "x-graphql-event-stream-token": "chosen-by-client" } });
    const tokens: string[] = [];
    for (let i = 0; i < RESERVATION_LIMITS.perAddress; i++) {
      const res = await reserve();
      expect(res.status).toBe(201);
      tokens.push(await res.text());
    }
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    const refused = await reserve();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Too many stream reservations from this address" });
    expect(refused.headers.get("retry-after")).toBe("10");

    // A reservation opened in time works, and its place is free again.
    const stream = await fetch(`${t.url}/graphql/stream`, { headers: { accept: "text/event-stream", "x-graphql-event-stream-token": tokens[0]! } });
    expect(stream.status).toBe(200);
    const operation = await fetch(`${t.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-graphql-event-stream-token": tokens[0]! },
      body: JSON.stringify({ query: "{ __typename }", extensions: { operationId: "op1" } }),
    });
    expect(operation.status).toBe(202);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: complete")) text += (await reader.read()).value ?? "";
    expect(text).toContain('data: {"id":"op1","payload":{"data":{"__typename":"Query"}}}');
    await reader.cancel();
    const again = await reserve();
    expect(again.status).toBe(201);

    // Past the time to live the others are gone: no stream opens on them, and new ones can be made.
    t.clock.advance(RESERVATION_LIMITS.ttlMs);
    const late = await fetch(`${t.url}/graphql/stream`, { headers: { accept: "text/event-stream", "x-graphql-event-stream-token": tokens[1]! } });
    expect(late.status).toBe(404);
    await late.body?.cancel();
    for (let i = 0; i < RESERVATION_LIMITS.perAddress; i++) expect((await reserve()).status).toBe(201);
    t.clock.advance(RESERVATION_LIMITS.ttlMs);
  });

  it("finding 6: open streams are capped per address (SSE_STREAMS_PER_ADDRESS)", async () => {
    const other = await configured.createMerchant();
    const payment = await configured.api("POST", "/payments", { key: other.sandboxKey, body: { amount: "1" } });
    const watch = () => subscribeSse(configured.url, `subscription ($id: ID!) { checkout(id: $id) { state } }`, { id: payment.body.id });
    const streams = [await watch(), await watch(), await watch()];
    open.push(...streams);
    for (const stream of streams) expect((await stream.next()).data.checkout.state).toBe("open");
    const fourth = await fetch(`${configured.url}/graphql/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: `{ __typename }` }),
    });
    expect(fourth.status).toBe(429);
    expect(await fourth.json()).toEqual({ error: "Too many open streams from this address" });
    // A closed stream gives its place back.
    streams[0]!.close();
    let reopened: SseSubscription | null = null;
    for (let attempt = 0; attempt < 50 && !reopened; attempt++) {
      const candidate = await watch();
      if (candidate.status === 200) reopened = candidate;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    open.push(reopened!);
    expect((await reopened!.next()).data.checkout.state).toBe("open");
  });
});

describe("issue 30: one stream policy for every door", () => {
  const ATTEMPTS = 12;
  const WATCH = `subscription ($id: ID!) { checkout(id: $id) { state } }`;
  const openStreams = async () => {
    const text = await (await fetch(`${configured.url}/metrics`)).text();
    return Number(/^stellar_pay_sse_subscribers (\d+)$/m.exec(text)?.[1]);
  };

  it("issue 30: more subscriptions than the cap at once from one address: /graphql/stream accepts the cap, /graphql refuses each, naming /graphql/stream", async () => {
    const other = await configured.createMerchant();
    const payment = await configured.api("POST", "/payments", { key: other.sandboxKey, body: { amount: "1" } });
    const variables = { id: payment.body.id };
    // The earlier tests' streams give their places back first.
    open.splice(0).forEach((s) => s.close());
    while ((await openStreams()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));

    // /graphql, as POST and as GET, with yoga's event stream asked for: each answers one error and ends.
    const body = JSON.stringify({ query: WATCH, variables });
    const viaGraphQL = await Promise.all(
      Array.from({ length: ATTEMPTS }, (_, i) =>
        i % 2
          ? fetch(`${configured.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body })
          : fetch(`${configured.url}/graphql?query=${encodeURIComponent(WATCH)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, {
              headers: { accept: "text/event-stream" },
            }),
      ),
    );
    for (const response of viaGraphQL) {
      // The whole answer arrives: the stream is over.
      const text = await response.text();
      expect(text).toContain('"code":"BAD_REQUEST"');
      expect(text).toContain("Subscriptions are served at /graphql/stream");
      expect(text).not.toContain('"state"');
    }
    const asJson = await configured.graphql(WATCH, variables);
    expect(asJson.body.errors[0]).toMatchObject({ message: expect.stringContaining("/graphql/stream"), extensions: { code: "BAD_REQUEST" } });

    // /graphql/stream: exactly the cap (3) open, the others refused with 429.
    const viaStream = await Promise.all(Array.from({ length: ATTEMPTS }, () => subscribeSse(configured.url, WATCH, variables)));
    open.push(...viaStream);
    const accepted = viaStream.filter((s) => s.status === 200);
    expect(accepted).toHaveLength(3);
    expect(viaStream.filter((s) => s.status === 429)).toHaveLength(ATTEMPTS - 3);
    for (const stream of accepted) expect((await stream.next()).data.checkout.state).toBe("open");
    // /metrics counts them; yoga's answers on /graphql left nothing open.
    expect(await openStreams()).toBe(3);
    for (const stream of viaStream) stream.close();
  });

  it("issue 30: a single connection reservation counts per address, and few addresses cannot fill the table", async () => {
    expect(RESERVATION_LIMITS.perAddress).toBeLessThanOrEqual(2);
    // Filling every reservation takes thousands of addresses.
    expect(RESERVATION_LIMITS.total / RESERVATION_LIMITS.perAddress).toBeGreaterThanOrEqual(5_000);
    const reserve = () => fetch(`${t.url}/graphql/stream`, { method: "PUT" });
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, reserve));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(RESERVATION_LIMITS.perAddress);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(ATTEMPTS - RESERVATION_LIMITS.perAddress);
    await Promise.all(answers.map((r) => r.body?.cancel()));
    t.clock.advance(RESERVATION_LIMITS.ttlMs);
  });
});
