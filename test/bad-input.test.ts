// Bad input is a 400 naming the field (GraphQL: an error with extensions.code), never a 500, and it
// changes nothing. One regression test per case of finding 7 of issue 13, then a sweep that throws
// malformed input at every REST route, the public pages and representative GraphQL operations.
import { Asset, Keypair, Networks, TransactionBuilder } from "@stellar/stellar-sdk";
import { describe, expect, it } from "vitest";
import { API_ROUTES } from "../src/app.ts";
import { EVENT_KINDS } from "../src/modules/events/event-kinds.ts";
import { enableAsset, setExchangeRate } from "../src/modules/organizations/organizations.service.ts";
import { fundedPayer, payOp, signedTransaction, startLedgerWorld, submit, waitFor } from "./support/ledger.ts";
import { subscribeSse } from "./support/sse.ts";
import { type ApiResponse, type TestApp, startTestApp, startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const key = merchant.sandboxKey;

/** Longest error message a test accepts (an enum's list of values is the longest): never the input. */
const MAX_MESSAGE = 500;

/** A 4xx with exactly the spec's one-field body and a short message. */
function expectOneFieldError(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${res.raw.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what}: ${res.raw.slice(0, 300)}`).toBeLessThan(500);
  expect(Object.keys(res.body ?? {}), what).toEqual(["error"]);
  expect(typeof res.body.error, what).toBe("string");
  expect(res.body.error.length, `${what}: ${res.body.error.slice(0, 300)}`).toBeLessThanOrEqual(MAX_MESSAGE);
}

/** What the database holds for this merchant: bad input must change none of it. */
async function rowCounts() {
  const db = t.database.db;
  const where = { organizationId: merchant.organizationId };
  return {
    payments: await db.payment.count({ where }),
    invoices: await db.invoice.count({ where }),
    customers: await db.customer.count({ where }),
    links: await db.paymentLink.count({ where }),
    sessions: await db.checkoutSession.count({ where }),
    endpoints: await db.webhookEndpoint.count({ where }),
    events: await db.event.count({ where }),
  };
}

const gqlErrors = (res: { body: any }) => (res.body.errors ?? []) as { message: string; extensions?: { code?: string } }[];

describe("finding 7: bad input is 400, never 500", () => {
  it("finding 7: a malformed percent-encoding in a REST path is 400, not 500", async () => {
    const res = await t.api("GET", "/payments/%E0%A4%A", { key });
    expectOneFieldError(res, "GET /payments/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("id must be valid percent-encoded UTF-8");

    // every route with an id, each method
    for (const route of API_ROUTES.filter((r) => r.path.includes(":id"))) {
      const path = route.path.replace(":id", "%E0%A4%A");
      const res = await t.api(route.method, path, { key, ...(route.method === "POST" && !route.bodyless && { body: {} }) });
      expect(res.status, `${route.method} ${path}`).toBe(400);
      expect(res.body, `${route.method} ${path}`).toEqual({ error: "id must be valid percent-encoded UTF-8" });
    }
    // a well-formed escape of an unknown id is still the spec's 404
    expect(await t.api("GET", "/payments/pay_%41bc", { key })).toMatchObject({ status: 404, body: { error: "Not found" } });
  });

  it("finding 7: an invoice whose items total passes the maximum amount is 400 naming items, not 500", async () => {
    const before = await rowCounts();
    const over = { items: [{ description: "A lot", quantity: "999999999", unit_amount: "922337203685.4775807" }] };
    const res = await t.api("POST", "/invoices", { key, body: over });
    expectOneFieldError(res, "POST /invoices");
    expect(res.body.error).toBe("items total of quantity x unit_amount must be at most 922337203685.4775807");

    // one stroop past the maximum across two lines, with and without amount
    const twoLines = [
      { description: "A", quantity: "1", unit_amount: "922337203685.4775807" },
      { description: "B", quantity: "1", unit_amount: "0.0000001" },
    ];
    for (const body of [{ items: twoLines }, { amount: "1", items: twoLines }]) {
      expect(await t.api("POST", "/invoices", { key, body })).toMatchObject({
        status: 400,
        body: { error: "items total of quantity x unit_amount must be at most 922337203685.4775807" },
      });
    }
    // the same through GraphQL
    const gql = await t.graphql(
      `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { id } }`,
      { input: { items: [{ description: "A lot", quantity: "999999999", unitAmount: "922337203685.4775807" }] } },
      key,
    );
    expect(gqlErrors(gql)).toMatchObject([
      { message: "Items: total of quantity x unit_amount must be at most 922337203685.4775807", extensions: { code: "BAD_REQUEST", field: "items" } },
    ]);
    expect(await rowCounts()).toEqual(before);

    // exactly the maximum is an invoice
    const max = await t.api("POST", "/invoices", { key, body: { items: [{ description: "Max", quantity: "1", unit_amount: "922337203685.4775807" }] } });
    expect(max.status).toBe(201);
    expect(max.body.amount).toBe("922337203685.4775807");
  });

  it("finding 7: a pricing_amount past the maximum, or one that converts past it, is 400, not 500", async () => {
    await setExchangeRate(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", currency: "USD", assetCode: "XLM", price: "0.0000001" });
    const before = await rowCounts();
    const converts = await t.api("POST", "/payments", { key, body: { pricing_currency: "USD", pricing_amount: "922337203685" } });
    expectOneFieldError(converts, "conversion");
    expect(converts.body.error).toBe("pricing_amount converts to more than 922337203685.4775807 XLM, the maximum amount");
    const huge = await t.api("POST", "/payments", { key, body: { pricing_currency: "USD", pricing_amount: "9".repeat(100_000) } });
    expectOneFieldError(huge, "huge pricing_amount");
    expect(huge.body.error).toBe("pricing_amount must be at most 922337203685.4775807");
    expect(await rowCounts()).toEqual(before);

    const fits = await t.api("POST", "/payments", { key, body: { pricing_currency: "USD", pricing_amount: "0.5" } });
    expect(fits.status).toBe(201);
    expect(fits.body.amount).toBe("5000000.0000000");
  });

  it("finding 7: a path payment whose 1% slippage bound passes the maximum amount is capped there, not a 500", async () => {
    const world = await startLedgerWorld("4");
    try {
      // 922,000 USDC at 1,000,000 TOK each: 922,000,000,000 TOK quoted, 1% more would pass the maximum.
      const tok = world.network.createAsset("TOK", Keypair.random());
      await enableAsset(world.t.deps, { organizationId: world.merchant.organizationId, environment: "sandbox", code: "TOK", issuer: tok.getIssuer() });
      world.network.addOffer({ selling: world.usdc, buying: tok, price: "1000000", amount: "1000000" });
      const payment = await world.t.api("POST", "/payments", {
        key: world.merchant.sandboxKey,
        body: { amount: "922000", settlement_asset: { asset_code: "USDC", issuer_address: world.usdc.getIssuer() } },
      });
      expect(payment.status).toBe(201);
      const payer = await fundedPayer(world.wallet);
      const prepared = await world.t.graphql(
        `mutation($id: ID!, $payer: String!, $asset: AssetRefInput) {
          prepareCheckoutTransaction(paymentId: $id, payerAddress: $payer, payAsset: $asset) { xdr amount sendMax } }`,
        { id: payment.body.id, payer: payer.publicKey(), asset: { assetCode: "TOK", issuerAddress: tok.getIssuer() } },
      );
      expect(prepared.body.errors).toBeUndefined();
      expect(prepared.body.data.prepareCheckoutTransaction).toMatchObject({ amount: "922000.0000000", sendMax: "922337203685.4775807" });
      const op = (TransactionBuilder.fromXDR(prepared.body.data.prepareCheckoutTransaction.xdr, Networks.TESTNET) as any).operations[0];
      expect(op).toMatchObject({ type: "pathPaymentStrictReceive", sendAsset: expect.any(Asset), sendMax: "922337203685.4775807" });
    } finally {
      await world.t.close();
    }
  });

  it("finding 7: amount_received stops at the maximum amount: an overpayment past int64 neither fails the ledger streamer nor a read", async () => {
    const world = await startLedgerWorld("4");
    try {
      const { t: app, merchant: owner, network, wallet } = world;
      const issuer = Keypair.random();
      const big = network.createAsset("BIG", issuer);
      await enableAsset(app.deps, { organizationId: owner.organizationId, environment: "sandbox", code: "BIG", issuer: issuer.publicKey() });
      network.setTrustline(owner.wallet.publicKey(), big);
      const most = "922337203685.0000000";
      const payers = [await fundedPayer(wallet), await fundedPayer(wallet)];
      for (const payer of payers) network.setTrustline(payer.publicKey(), big, { balance: most });
      const create = (amount: string, asset?: Asset) =>
        app.api("POST", "/payments", {
          key: owner.sandboxKey,
          body: { amount, ...(asset && { settlement_asset: { asset_code: asset.getCode(), issuer_address: asset.getIssuer() } }) },
        });
      const read = async (id: string) => (await app.api("GET", `/payments/${id}`, { key: owner.sandboxKey })).body;
      const receivedOf = async (id: string) =>
        (await app.graphql(`query($id: ID!) { payment(id: $id) { amountReceived } }`, { id }, owner.sandboxKey)).body;

      const payment = (await create(most, big)).body;
      const destination = payment.payment_instructions.muxed_destination;
      expect(await submit(wallet, await signedTransaction(wallet, payers[0]!, [payOp(destination, most, big)]))).toHaveProperty("hash");
      await waitFor(() => read(payment.id), (p) => p.status === "completed");
      // The merchant moves the money on (a balance never passes int64), and the same payment is paid again.
      expect(await submit(wallet, await signedTransaction(wallet, owner.wallet, [payOp(issuer.publicKey(), most, big)]))).toHaveProperty("hash");
      expect(await submit(wallet, await signedTransaction(wallet, payers[1]!, [payOp(destination, most, big)]))).toHaveProperty("hash");

      // The streamer moves on: a later ordinary payment completes.
      const later = (await create("1")).body;
      const payer = await fundedPayer(wallet);
      await submit(wallet, await signedTransaction(wallet, payer, [payOp(later.payment_instructions.muxed_destination, "1")]));
      await waitFor(() => read(later.id), (p) => p.status === "completed");
      expect((await read(payment.id)).status).toBe("completed");
      expect(await receivedOf(payment.id)).toEqual({ data: { payment: { amountReceived: "922337203685.4775807" } } });
    } finally {
      await world.t.close();
    }
  });

  it("finding 7: metadata keys __proto__, constructor and prototype are refused with 400 naming metadata", async () => {
    const creates: [string, string][] = [
      ["/payments", `"amount": "1"`],
      ["/invoices", `"amount": "1"`],
      ["/customers", `"name": "Ada"`],
      ["/payment-links", `"amount": "1"`],
      ["/checkout-sessions", `"amount": "1"`],
    ];
    const before = await rowCounts();
    for (const reserved of ["__proto__", "constructor", "prototype"]) {
      for (const [path, fields] of creates) {
        // JSON text, not JSON.stringify of an object literal: `{ __proto__: ... }` would set a prototype.
        for (const value of [`"x"`, `{"polluted": "yes"}`]) {
          const rawBody = `{${fields}, "metadata": {"order": "1", "${reserved}": ${value}}}`;
          const res = await t.api("POST", path, { key, rawBody, headers: { "content-type": "application/json" } });
          expectOneFieldError(res, `${path} ${rawBody}`);
          expect(res.body.error, `${path} ${rawBody}`).toBe(`metadata must not use the reserved key ${reserved}`);
        }
      }
      // a customer update too
      const customer = await t.database.db.customer.findFirst({ where: { organizationId: merchant.organizationId } });
      if (customer) {
        const res = await t.api("POST", `/customers/${customer.id}`, {
          key,
          rawBody: `{"metadata": {"${reserved}": "x"}}`,
          headers: { "content-type": "application/json" },
        });
        expect(res.body).toEqual({ error: `metadata must not use the reserved key ${reserved}` });
      }
      // GraphQL: as a variable (JSON) and as a literal in the document
      const variable = await t.graphql(
        `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`,
        { input: { amount: "1", metadata: JSON.parse(`{"${reserved}": "x"}`) } },
        key,
      );
      const literal = await t.graphql(`mutation { createPayment(input: { amount: "1", metadata: { ${reserved}: "x" } }) { id } }`, undefined, key);
      for (const res of [variable, literal]) {
        expect(gqlErrors(res)).toMatchObject([{ message: `Metadata: must not use the reserved key ${reserved}`, extensions: { code: "BAD_REQUEST", field: "metadata" } }]);
      }
    }
    expect(await rowCounts()).toEqual(before);
    // ordinary keys that merely contain the words are fine
    const fine = await t.api("POST", "/payments", { key, body: { amount: "1", metadata: { proto: "1", constructor_name: "2", "a.prototype": "3" } } });
    expect(fine.status).toBe(201);
    expect(fine.body.metadata).toEqual({ proto: "1", constructor_name: "2", "a.prototype": "3" });
  });

  it("text a database cannot store (NUL, an unpaired surrogate) is 400 naming the field on every door", async () => {
    const before = await rowCounts();
    const cases: [string, string, ApiResponse | Promise<ApiResponse>, string][] = [
      ["body field", "POST /payments", t.api("POST", "/payments", { key, body: { amount: "1", description: "a\u0000b" } }), "description"],
      ["surrogate", "POST /customers", t.api("POST", "/customers", { key, body: { name: "\ud800" } }), "name"],
      ["nested", "POST /invoices", t.api("POST", "/invoices", { key, body: { items: [{ description: "\u0000", quantity: "1", unit_amount: "1" }] } }), "items[0].description"],
      ["metadata value", "POST /payments", t.api("POST", "/payments", { key, body: { amount: "1", metadata: { a: "\udc00x" } } }), "metadata.a"],
      ["id in body", "POST /payments", t.api("POST", "/payments", { key, body: { amount: "1", customer_id: "cus_\u0000" } }), "customer_id"],
      ["query", "GET /payments", t.api("GET", "/payments?starting_after=%00", { key }), "starting_after"],
      ["query filter", "GET /webhook-deliveries", t.api("GET", "/webhook-deliveries?event=a%00", { key }), "event"],
      ["path", "GET /invoices/:id", t.api("GET", "/invoices/inv_%00", { key }), "id"],
    ];
    for (const [what, route, pending, field] of cases) {
      const res = await pending;
      expectOneFieldError(res, `${what} ${route}`);
      expect(res.status).toBe(400);
      expect(res.body.error, `${what} ${route}`).toBe(`${field} must not contain NUL characters or unpaired surrogates`);
    }
    const badKey = await t.api("POST", "/payments", { key, body: { amount: "1", metadata: { "k\u0000": "v" } } });
    expect(badKey.body).toEqual({ error: "metadata has a key with NUL characters or unpaired surrogates" });

    // GraphQL: ids, filters, idempotency keys and inputs, on /graphql and /graphql/stream
    const graphqlCases: [string, Record<string, unknown>, string | undefined, string][] = [
      [`query($id: ID!) { payment(id: $id) { id } }`, { id: "pay_\u0000" }, key, "id"],
      [`query($c: String) { payments(customerId: $c) { edges { node { id } } } }`, { c: "\u0000" }, key, "customerId"],
      [`mutation($k: String) { createPayment(input: { amount: "1" }, idempotencyKey: $k) { id } }`, { k: "k\u0000" }, key, "idempotencyKey"],
      [`mutation($d: String) { createPayment(input: { amount: "1", description: $d }) { id } }`, { d: "\ud800" }, key, "input.description"],
      [`mutation($id: ID!) { finalizeInvoice(id: $id) { id } }`, { id: "inv_\u0000" }, key, "id"],
      [`query($id: ID!) { checkout(id: $id) { paymentId } }`, { id: "pay_\u0000" }, undefined, "id"],
    ];
    for (const [query, variables, apiKey, field] of graphqlCases) {
      const res = await t.graphql(query, variables, apiKey);
      expect(gqlErrors(res), query).toMatchObject([
        { message: `${field} must not contain NUL characters or unpaired surrogates`, extensions: { code: "BAD_REQUEST" } },
      ]);
    }
    const stream = await subscribeSse(t.url, `subscription($id: ID!) { checkout(id: $id) { paymentId } }`, { id: "pay_\u0000" });
    try {
      const frame = await stream.next(5_000);
      expect(frame.errors).toMatchObject([
        { message: "id must not contain NUL characters or unpaired surrogates", extensions: { code: "BAD_REQUEST" } },
      ]);
    } finally {
      stream.close();
    }
    expect(await rowCounts()).toEqual(before);

    // text outside the Basic Multilingual Plane is ordinary text
    const emoji = await t.api("POST", "/customers", { key, body: { name: "Ada 💸", metadata: { "🔑": "✓" } } });
    expect(emoji.status).toBe(201);
    expect(emoji.body).toMatchObject({ name: "Ada 💸", metadata: { "🔑": "✓" } });
  });

  it("input nested past 32 levels is 400 before anything reads it, with or without an idempotency key", async () => {
    const before = await rowCounts();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    for (const headers of [{}, { "idempotency-key": "deep-1" }] as Record<string, string>[]) {
      const res = await t.api("POST", "/payments", {
        key,
        rawBody: `{"amount": "1", "metadata": {"a": ${deep}}}`,
        headers: { "content-type": "application/json", ...headers },
      });
      expectOneFieldError(res, "deep body");
      expect(res.body.error).toMatch(/^metadata\.a(\[0\])+ is nested too deeply$/);
    }
    // written as text: JSON.stringify itself cannot go this deep
    const query = `mutation($input: CreatePaymentInput!) { createPayment(input: $input, idempotencyKey: "deep-2") { id } }`;
    const response = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: `{"query": ${JSON.stringify(query)}, "variables": {"input": {"amount": "1", "metadata": {"a": ${deep}}}}}`,
    });
    const gql = { body: await response.json() };
    expect(gqlErrors(gql)).toHaveLength(1);
    expect(gqlErrors(gql)[0]).toMatchObject({ extensions: { code: "BAD_REQUEST" } });
    expect(gqlErrors(gql)[0]!.message).toMatch(/^input\.metadata\.a(\[0\])+ is nested too deeply$/);
    expect(await rowCounts()).toEqual(before);
  });

  it("messages name the field without echoing large input; a 405 does not echo the path", async () => {
    const longKey = "k".repeat(100_000);
    const unknown = await t.api("POST", "/payments", { key, body: { amount: "1", [longKey]: "x" } });
    expectOneFieldError(unknown, "unknown long field");
    expect(unknown.body.error).toBe(`${"k".repeat(40)}… is not a recognized field`);
    const value = await t.api("POST", "/payments", { key, body: { amount: "1", metadata: { [longKey]: 1 } } });
    expectOneFieldError(value, "long metadata key");
    const notAllowed = await t.api("DELETE", `/payments/${"x".repeat(8_000)}`, { key });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.body).toEqual({ error: "DELETE is not allowed on this path" });
  });

  it("a request whose Host makes no URL is 400, and no door answers with a stack trace", async () => {
    const { request } = await import("node:http");
    const address = new URL(t.url);
    const send = (path: string, host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: address.hostname, port: address.port, path, headers: { host } }, (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        });
        req.on("error", reject);
        req.end();
      });
    for (const path of ["/c/pay_x", "/graphql", "/health", "/i/inv_x"]) {
      const res = await send(path, "[");
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ error: "The request URL is not valid" });
    }
  });
});

describe("finding 7: a sweep of malformed input finds no 500", () => {
  const BAD_IDS = ["%E0%A4%A", "%", "%ZZ", "%00", "%ED%A0%80", "x".repeat(4_000), "pay_%F0%9F%92%B8", "..%2F..%2Fetc", "%27%20OR%201%3D1--", "inv_"];
  const BAD_QUERIES = [
    "limit=1e999", "limit=-1", "limit=0", "limit=101", "limit=1.5", "limit=abc", "limit=", "limit=0x10", "limit=%00",
    "starting_after=%27%22%3B", "starting_after=%00", "ending_before=%ED%A0%80", `starting_after=${"a".repeat(6_000)}`,
    "starting_after=a&ending_before=b", "status=%E0", "status=pending%00", "customer_id=%F0%9F%92%B8", "active=%00",
    "endpoint_id=%00", "event=%E2%80%AE", "limit=1&limit=-5", "%00=%00", "__proto__=1", "constructor=x",
  ];
  const BAD_BODIES = ["[]", "[[[[[[[[]]]]]]]]", '"text"', "1", "null", "true", "{", '{"a":', "\u0000", "{}".repeat(10)];
  const FIELDS = [
    "amount", "pricing_currency", "pricing_amount", "settlement_asset", "asset", "allowed_assets", "description", "metadata",
    "expires_in_minutes", "customer_id", "success_url", "cancel_url", "due_in_days", "items", "email", "name", "url",
    "enabled_events", "enabled", "tx_hash", "payer_address", "__proto__",
  ];
  const BAD_VALUES: unknown[] = [
    null, 1, -1, 1e308, 0.1, true, [], [[]], {}, { a: { b: [1] } }, "", " ", "x".repeat(100_000), "\u0000", "\ud800", "💸",
    "1e999", "-1", "NaN", "922337203685.4775808", "9".repeat(40), [{ asset_code: "XLM", issuer_address: "\u0000" }],
    [{ description: "A", quantity: "999999999", unit_amount: "922337203685.4775807" }], { "": "x" },
  ];
  /** What makes each create otherwise valid, so that the field under test is the one judged. */
  const VALID: Record<string, Record<string, unknown>> = {
    "/payments": { amount: "1" },
    "/invoices": { amount: "1" },
    "/payment-links": { amount: "1" },
    "/checkout-sessions": { amount: "1" },
    "/webhook-endpoints": { url: "https://example.test/hook", enabled_events: ["*"] },
  };

  /** Adds to `problems` every answer that is a 5xx, or a 4xx without a short one-field body. */
  async function probe(
    problems: string[],
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ) {
    const res = await t.api(method, path, { key, ...options });
    const what = `${method} ${path.slice(0, 80)} ${(options.rawBody ?? JSON.stringify(options.body) ?? "").slice(0, 80)}`;
    if (res.status >= 500) problems.push(`${what} -> ${res.status} ${res.raw.slice(0, 200)}`);
    else if (res.status >= 400) {
      const ok = res.body && Object.keys(res.body).length === 1 && typeof res.body.error === "string" && res.body.error.length <= MAX_MESSAGE;
      if (!ok) problems.push(`${what} -> ${res.status} not a short one-field error: ${res.raw.slice(0, 200)}`);
    }
  }

  let existing: { customer: string; endpoint: string; payment: string } | undefined;
  async function existingIds() {
    existing ??= {
      customer: (await t.api("POST", "/customers", { key, body: { name: "Sweep" } })).body.id as string,
      endpoint: (await t.api("POST", "/webhook-endpoints", { key, body: VALID["/webhook-endpoints"] })).body.id as string,
      payment: (await t.api("POST", "/payments", { key, body: { amount: "1" } })).body.id as string,
    };
    return existing;
  }

  /** Runs the probes a few at a time: the answers, not their order, are what is checked. */
  async function probeAll(probes: (() => Promise<void>)[]) {
    for (let i = 0; i < probes.length; i += 8) await Promise.all(probes.slice(i, i + 8).map((run) => run()));
  }

  it.each(API_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: bad ids, bad query parameters, non-object bodies and wrong field types",
    async (_name, route) => {
      const problems: string[] = [];
      const probes: (() => Promise<void>)[] = [];
      const ids = route.path.includes(":id") ? BAD_IDS : [""];
      for (const id of ids) {
        const path = route.path.replace(":id", id);
        if (route.method === "GET") {
          for (const query of ["", ...(route.path.includes(":id") ? [] : BAD_QUERIES)]) {
            probes.push(() => probe(problems, "GET", query ? `${path}?${query}` : path));
          }
        } else {
          probes.push(() => probe(problems, route.method, path, route.method === "POST" ? { body: {} } : {}));
        }
      }
      if (route.method === "POST") {
        // bodies, on a real id where the route has one (so that the body is what gets judged)
        const real = await existingIds();
        const realId = route.path.startsWith("/customers") ? real.customer : route.path.startsWith("/webhook-endpoints") ? real.endpoint : real.payment;
        const path = route.path.replace(":id", realId);
        for (const rawBody of BAD_BODIES) probes.push(() => probe(problems, "POST", path, { rawBody, headers: { "content-type": "application/json" } }));
        // A bodyless route reads no field: it parses the body and leaves it, acting each time (a
        // rotation, a test delivery), so each value once, under a plain name and __proto__, is all it can meet.
        for (const field of route.bodyless ? ["amount", "__proto__"] : FIELDS) {
          for (const value of BAD_VALUES) probes.push(() => probe(problems, "POST", path, { body: { ...VALID[route.path], [field]: value } }));
        }
      }
      await probeAll(probes);
      expect(problems.sort()).toEqual([]);
    },
    60_000,
  );

  it("public pages and payment link visits: malformed paths and methods", async () => {
    const paths = [
      "/c/%E0%A4%A", "/c/pay_%E0%A4%A", "/c/cs_%00", "/i/inv_%ED%A0%80", "/c/plink_%E0", "/c/plink_" + "A".repeat(65),
      "/c/assets/%E0%A4%A", "/c/assets/..%2F..%2Fpackage.json", "/c/assets/%00", "/i/" + "x".repeat(6_000), "/c//", "/i/",
      "/c/pay_x/extra", "/%E0%A4%A", "/graphql/%E0", "/health/%00",
    ];
    const found: string[] = [];
    for (const path of paths) {
      for (const method of ["GET", "HEAD", "POST", "DELETE"]) {
        const res = await fetch(`${t.url}${path}`, { method, redirect: "manual" });
        const body = await res.text();
        if (res.status >= 500 || /\n\s+at /.test(body)) found.push(`${method} ${path.slice(0, 60)} -> ${res.status} ${body.slice(0, 120)}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("GraphQL mutations and queries with bad input answer a coded error, never INTERNAL", async () => {
    const { body: customer } = await t.api("POST", "/customers", { key, body: { name: "GQL sweep" } });
    const operations: [string, (value: unknown) => Record<string, unknown>, string | undefined][] = [
      [`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`, (v) => ({ input: { amount: v } }), key],
      [`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`, (v) => ({ input: { amount: "1", metadata: v } }), key],
      [`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`, (v) => ({ input: { pricingCurrency: "USD", pricingAmount: v } }), key],
      [`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`, (v) => ({ input: { amount: "1", customerId: v } }), key],
      [`mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { id } }`, (v) => ({ input: { items: [{ description: "A", quantity: v, unitAmount: "1" }] } }), key],
      [`mutation($input: CustomerInput!) { createCustomer(input: $input) { id } }`, (v) => ({ input: { email: v, metadata: { a: v } } }), key],
      [`mutation($id: ID!, $input: CustomerInput!) { updateCustomer(id: $id, input: $input) { id } }`, (v) => ({ id: customer.id, input: { name: v } }), key],
      [`mutation($input: CreatePaymentLinkInput!) { createPaymentLink(input: $input) { id } }`, (v) => ({ input: { amount: "1", description: v } }), key],
      [`mutation($input: CreateCheckoutSessionInput!) { createCheckoutSession(input: $input) { id } }`, (v) => ({ input: { amount: "1", successUrl: v } }), key],
      [`mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { __typename } }`, (v) => ({ input: { url: v, enabledEvents: ["*"] } }), key],
      [`mutation($id: ID!) { markPaymentCompleted(id: $id, txHash: "00") { id } }`, (v) => ({ id: v }), key],
      [`mutation($id: ID!, $r: String) { markPaymentCompleted(id: $id, reason: $r) { id } }`, (v) => ({ id: "pay_none", r: v }), key],
      [`query($s: String, $d: DateTime) { payments(search: $s, createdFrom: $d) { edges { node { id } } } }`, (v) => ({ s: v, d: v }), key],
      [`query($id: ID!) { invoice(id: $id) { id } }`, (v) => ({ id: v }), key],
      [`query($id: ID!) { checkout(id: $id) { paymentId } }`, (v) => ({ id: v }), undefined],
      [`mutation($id: ID!, $a: String!) { prepareCheckoutTransaction(paymentId: $id, payerAddress: $a) { xdr } }`, (v) => ({ id: v, a: v }), undefined],
    ];
    const values: unknown[] = ["", "\u0000", "\ud800", "x".repeat(100_000), "922337203685.4775808", "999999999", "💸", "%E0%A4%A", 1, [], {}];
    const found: string[] = [];
    for (const [query, variables, apiKey] of operations) {
      for (const value of values) {
        const res = await t.graphql(query, variables(value), apiKey);
        const bad = gqlErrors(res).filter((e) => !e.extensions?.code || e.extensions.code === "INTERNAL" || e.message === "Internal server error");
        // graphql-js's own variable coercion errors carry no code: they are the caller's mistake, at status 400
        if (bad.length && res.status !== 400) found.push(`${query.slice(0, 60)} ${JSON.stringify(value).slice(0, 40)} -> ${JSON.stringify(bad).slice(0, 200)}`);
        for (const error of gqlErrors(res)) {
          if (error.message.length > 400) found.push(`${query.slice(0, 60)}: a ${error.message.length}-character message`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

describe("issue 30: every array and string input is bounded, on both doors", () => {
  const xlm = { asset_code: "XLM" };
  /** `count` distinct credit assets of one issuer (codes A1, A2...): only the count is wrong. */
  const creditAssets = (count: number) => {
    const issuer = Keypair.random().publicKey();
    return Array.from({ length: count }, (_, i) => ({ asset_code: `A${i + 1}`, issuer_address: issuer }));
  };
  const creates = [
    { path: "/payments", body: { amount: "1" } },
    { path: "/payment-links", body: { amount: "1" } },
    { path: "/checkout-sessions", body: { amount: "1" } },
  ];

  it("allowed_assets of 20,000 duplicates, of 21 assets, or naming one asset twice is 400 naming allowed_assets, and stores nothing", async () => {
    const before = await rowCounts();
    const cases: [unknown[], string][] = [
      [Array.from({ length: 20_000 }, () => xlm), "allowed_assets must have at most 20 items"],
      [creditAssets(21), "allowed_assets must have at most 20 items"],
      [[xlm, xlm], "allowed_assets must not name the same asset twice"],
      // the same asset, written two ways
      [[xlm, { asset_code: "XLM", issuer_address: null }], "allowed_assets must not name the same asset twice"],
    ];
    for (const { path, body } of creates) {
      for (const [allowed, message] of cases) {
        const res = await t.api("POST", path, { key, body: { ...body, allowed_assets: allowed } });
        expect(res.status, `${path} with ${allowed.length} assets`).toBe(400);
        expect(res.body).toEqual({ error: message });
      }
    }
    const gql = await t.graphql(`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`, {
      input: { amount: "1", allowedAssets: Array.from({ length: 20_000 }, () => ({ assetCode: "XLM" })) },
    }, key);
    expect(gqlErrors(gql).map((e) => [e.message, e.extensions?.code])).toEqual([["Allowed assets: must have at most 20 items", "BAD_REQUEST"]]);
    expect(await rowCounts()).toEqual(before);
  });

  it("20 distinct enabled assets are taken", async () => {
    // A merchant of its own: every payment of this one would allow its 20 assets.
    const owner = await t.createMerchant();
    const assets = creditAssets(19);
    for (const asset of assets) {
      await enableAsset(t.deps, { organizationId: owner.organizationId, environment: "sandbox", code: asset.asset_code, issuer: asset.issuer_address });
    }
    const res = await t.api("POST", "/payments", { key: owner.sandboxKey, body: { amount: "1", allowed_assets: [xlm, ...assets] } });
    expect(res.status).toBe(201);
    expect(res.body.allowed_assets).toHaveLength(20);
  });

  it("ids, amounts, currency codes and quantities past their bound are 400 naming the field, on REST and GraphQL", async () => {
    const before = await rowCounts();
    // An amount of 33 characters that is no larger than the maximum: zeros in front.
    const long = (n: number) => `${"0".repeat(n - 1)}1`;
    const cases: [string, unknown, string][] = [
      ["/payments", { amount: "1", customer_id: "c".repeat(65) }, "customer_id must be at most 64 characters"],
      ["/payments", { amount: long(33) }, "amount must be at most 32 characters"],
      ["/payments", { pricing_currency: "USD", pricing_amount: long(33) }, "pricing_amount must be at most 32 characters"],
      ["/invoices", { amount: "1", customer_id: "c".repeat(65) }, "customer_id must be at most 64 characters"],
      ["/checkout-sessions", { amount: "1", customer_id: "c".repeat(65) }, "customer_id must be at most 64 characters"],
      [
        "/webhook-endpoints",
        { url: "https://example.com/h", enabled_events: Array.from({ length: EVENT_KINDS.length + 1 }, () => "payment.created") },
        `enabled_events must have at most ${EVENT_KINDS.length} items`,
      ],
    ];
    for (const [path, body, message] of cases) {
      const res = await t.api("POST", path, { key, body });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({ error: message });
    }
    for (const query of ["starting_after", "ending_before", "customer_id"]) {
      const res = await t.api("GET", `/payments?${query}=${"p".repeat(65)}`, { key });
      expect(res.body).toEqual({ error: `${query} must be at most 64 characters` });
    }
    const gql = await t.graphql(`mutation($input: CreatePaymentInput!) { createPayment(input: $input) { id } }`, { input: { amount: "1", customerId: "c".repeat(65) } }, key);
    expect(gqlErrors(gql).map((e) => e.message)).toEqual(["Customer ID: must be at most 64 characters"]);
    expect(await rowCounts()).toEqual(before);
  });
});

describe("HSTS", () => {
  it("finding 7: with an https PUBLIC_URL every door answers with Strict-Transport-Security", async () => {
    const https: TestApp = await startTestApp({ env: { PUBLIC_URL: "https://pay.example.test" } });
    try {
      const { sandboxKey } = await https.createMerchant();
      const link = await https.api("POST", "/payment-links", { key: sandboxKey, body: { amount: "1" } });
      const payment = await https.api("POST", "/payments", { key: sandboxKey, body: { amount: "1" } });
      const hsts = "max-age=31536000; includeSubDomains";
      expect(payment.headers.get("strict-transport-security")).toBe(hsts);
      const answers: [string, Response][] = [
        ["REST error", await fetch(`${https.url}/api/v1/payments/%E0`, { headers: { authorization: `Bearer ${sandboxKey}` } })],
        ["REST 401", await fetch(`${https.url}/api/v1/payments`)],
        ["GraphQL", await fetch(`${https.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"query":"{ __typename }"}' })],
        ["checkout page", await fetch(`${https.url}/c/${payment.body.id}`)],
        ["link visit", await fetch(`${https.url}/c/${link.body.id}`, { redirect: "manual" })],
        ["unknown path", await fetch(`${https.url}/nothing-here`)],
        ["health", await fetch(`${https.url}/health`)],
      ];
      const stream = new AbortController();
      answers.push([
        "SSE",
        await fetch(`${https.url}/graphql/stream`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query: `subscription($id: ID!) { checkout(id: $id) { paymentId } }`, variables: { id: payment.body.id } }),
          signal: stream.signal,
        }),
      ]);
      for (const [door, res] of answers) expect(res.headers.get("strict-transport-security"), door).toBe(hsts);
      stream.abort();
      // the Web-standard entry point too
      const inProcess = await https.app.fetch(new Request("https://pay.example.test/health"));
      expect(inProcess.headers.get("strict-transport-security")).toBe(hsts);
    } finally {
      await https.close();
    }
  });

  it("with an http PUBLIC_URL no door sends Strict-Transport-Security", async () => {
    const answers = [
      await t.api("GET", "/payments", { key }),
      await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"query":"{ __typename }"}' }),
      await fetch(`${t.url}/health`),
    ];
    for (const res of answers) expect(res.headers.get("strict-transport-security")).toBeNull();
  });
});
