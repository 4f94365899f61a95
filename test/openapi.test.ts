// GET /api/v1/openapi.json: a valid OpenAPI 3.1 document that documents every route, and whose
// statuses and schemas match what the server really answers on a walk through the whole API; whose
// request schemas accept what the server accepts and refuse what it refuses; whose webhooks describe
// the deliveries the service sends; and from which a client generated with openapi-typescript
// type-checks, works with openapi-fetch, and refuses at compile time a body the server would refuse.
// (test/openapi-lint.nodb.test.ts lints the document.)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memo, Networks, TransactionBuilder } from "@stellar/stellar-sdk";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import createClient from "openapi-fetch";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES } from "../src/app.ts";
import { EVENT_KINDS } from "../src/modules/events/event-kinds.ts";
import { type ApiOptions, type ApiResponse, type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";
import { fundedPayer, payOp, signedTransaction, startLedgerWorld, submit, waitFor } from "./support/ledger.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";

let t: TestApp;
let merchant: Merchant;
let receiver: WebhookReceiver;
let doc: any;

beforeAll(async () => {
  // Live keys get 1 request a second, so a burst meets 429; the walk uses the unlimited sandbox key.
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "300", RATE_LIMIT_LIVE: "1" } });
  merchant = await t.createMerchant();
  receiver = await startWebhookReceiver();
  const response = await fetch(`${t.url}/api/v1/openapi.json`);
  expect(response.status).toBe(200);
  doc = await response.json();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const HTTP_METHODS = ["get", "post", "delete"] as const;

/** The document's path template for a request path with an operation for `method` ("/payments/pay_1?limit=2" -> "/payments/{id}"). */
function templateFor(method: string, path: string): string {
  const bare = path.split("?")[0]!;
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    if (pattern.test(bare) && item[method.toLowerCase()]) return template;
  }
  throw new Error(`${method} ${bare} is not in the document`);
}

const pointer = (...parts: string[]) => parts.map((p) => `/${p.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

/** A response object and where it is in the document, following a $ref to components. */
function documentedResponse(template: string, method: string, status: number): { response: any; at: string } | null {
  const response = doc.paths[template][method.toLowerCase()].responses[String(status)];
  if (!response) return null;
  if (!response.$ref) return { response, at: pointer("paths", template, method.toLowerCase(), "responses", String(status)) };
  const name = String(response.$ref).replace("#/components/responses/", "");
  return { response: doc.components.responses[name], at: pointer("components", "responses", name) };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
function validatorAt(at: string): ValidateFunction {
  if (!ajv.getSchema("openapi")) ajv.addSchema(doc, "openapi");
  let validate = validators.get(at);
  if (!validate) validators.set(at, (validate = ajv.compile({ $ref: `openapi#${at}` })));
  return validate;
}

/** Which operations answered which statuses during the walk. */
const seen = new Map<string, Set<number>>();

/** A request through the test client, checked against the document: status, body schema, required headers. */
async function call(method: string, path: string, options: ApiOptions = {}): Promise<ApiResponse> {
  const answer = await t.api(method, path, options);
  expectDocumented(method, path, answer);
  return answer;
}

function expectDocumented(method: string, path: string, answer: { status: number; headers: Headers; body: unknown }) {
  const template = templateFor(method, path);
  const documented = documentedResponse(template, method, answer.status);
  expect(documented, `${method} ${template} answered ${answer.status}, which is not documented`).not.toBeNull();
  const validate = validatorAt(`${documented!.at}${pointer("content", "application/json", "schema")}`);
  const valid = validate(answer.body);
  expect(valid, `${method} ${template} ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  for (const [name, header] of Object.entries<any>(documented!.response.headers ?? {})) {
    const resolved = header.$ref ? doc.components.headers[String(header.$ref).replace("#/components/headers/", "")] : header;
    if (resolved.required) expect(answer.headers.get(name), `${method} ${template} ${answer.status}: header ${name}`).not.toBeNull();
  }
  const key = `${method.toUpperCase()} ${template}`;
  seen.set(key, (seen.get(key) ?? new Set()).add(answer.status));
}

describe("GET /api/v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, served without a key to any origin", async () => {
    const response = await fetch(`${t.url}/api/v1/openapi.json`, { headers: { origin: "https://tools.example" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const validator = new Validator();
    const result = await validator.validate(await response.json());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.servers).toMatchObject([{ url: "http://pay.example.test/api/v1" }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it("documents every route the API serves, with its path parameters", () => {
    for (const route of API_ROUTES) {
      const template = route.path.replace(/:(\w+)/g, "{$1}");
      const operation = doc.paths[template]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
      const pathParams = (operation.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name);
      expect(pathParams).toEqual([...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name));
    }
    const documented = Object.values<any>(doc.paths).flatMap((item) => HTTP_METHODS.filter((m) => item[m]));
    expect(documented).toHaveLength(API_ROUTES.length + 1); // + the document itself
  });

  it("names the error statuses with the one-field error body, Idempotency-Key on POSTs and Retry-After on 429", () => {
    const finalize = doc.paths["/invoices/{id}/finalize"].post;
    expect(Object.keys(finalize.responses)).toEqual(["200", "400", "401", "404", "409", "413", "414", "415", "429", "431", "500"]);
    expect(finalize.responses["409"].description).toMatch(/not a draft/);
    expect(Object.keys(doc.paths["/payments"].get.responses)).toEqual(["200", "400", "401", "414", "429", "431", "500"]);
    expect(doc.components.responses.Error401.headers["WWW-Authenticate"]).toEqual({ $ref: "#/components/headers/WWW-Authenticate" });
    expect(doc.components.headers["WWW-Authenticate"]).toMatchObject({ required: true, schema: { const: "Bearer" } });
    expect(doc.components.schemas.Error).toMatchObject({ required: ["error"], additionalProperties: false });
    expect(Object.keys(doc.components.schemas.Error.properties)).toEqual(["error"]);
    expect(doc.components.responses.Error429.headers["Retry-After"]).toBeDefined();
    expect(doc.components.headers["Retry-After"].required).toBe(true);
    expect(doc.paths["/payments"].post.parameters).toContainEqual({ $ref: "#/components/parameters/Idempotency-Key" });
    expect(doc.components.parameters["Idempotency-Key"]).toMatchObject({ in: "header", name: "Idempotency-Key" });
    expect(doc.paths["/payments/{id}"].get.parameters).not.toContainEqual({ $ref: "#/components/parameters/Idempotency-Key" });
  });
});

describe("a walk through the API answers as documented", () => {
  const key = () => merchant.sandboxKey;

  it("payments: create (and its idempotent replay), get, list with filters, complete", async () => {
    const customer = await call("POST", "/customers", { key: key(), body: { email: "payer@example.com", name: "Payer" } });
    expect(customer.status).toBe(201);
    const body = { amount: "12.5", description: "order 1", metadata: { order: "1" }, customer_id: customer.body.id };
    const headers = { "idempotency-key": "walk-payment-1" };
    const created = await call("POST", "/payments", { key: key(), body, headers });
    expect(created.status).toBe(201);
    const replayed = await call("POST", "/payments", { key: key(), body, headers });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.raw).toBe(created.raw);
    expect((await call("POST", "/payments", { key: key(), body: { ...body, amount: "13" }, headers })).status).toBe(409);

    expect((await call("GET", `/payments/${created.body.id}`, { key: key() })).body.id).toBe(created.body.id);
    const listed = await call("GET", `/payments?limit=5&status=pending&customer_id=${customer.body.id}`, { key: key() });
    expect(listed.body.payments.map((p: any) => p.id)).toEqual([created.body.id]);

    const completed = await call("POST", `/payments/${created.body.id}/complete`, { key: key() });
    expect(completed.body.status).toBe("completed");
    expect((await call("POST", `/payments/${created.body.id}/complete`, { key: key() })).status).toBe(409);
    const priced = await call("POST", "/payments", { key: key(), body: { amount: "5", pricing_currency: "USD", pricing_amount: "5" } });
    expect(priced.status).toBe(201);
  });

  it("customers: create, get, list, update", async () => {
    const created = await call("POST", "/customers", { key: key(), body: { name: "Ada", metadata: { tier: "gold" } } });
    expect((await call("GET", `/customers/${created.body.id}`, { key: key() })).status).toBe(200);
    expect((await call("GET", "/customers?limit=1", { key: key() })).body.has_more).toBe(true);
    const updated = await call("POST", `/customers/${created.body.id}`, { key: key(), body: { email: "ada@example.com", name: null } });
    expect(updated.body).toMatchObject({ email: "ada@example.com", name: null });
  });

  it("invoices: create, get, list, finalize (and again: 409), void", async () => {
    const created = await call("POST", "/invoices", {
      key: key(),
      body: { items: [{ description: "Consulting", quantity: "2", unit_amount: "50" }], due_in_days: 14 },
    });
    expect(created.body.status).toBe("draft");
    expect((await call("GET", `/invoices/${created.body.id}`, { key: key() })).status).toBe(200);
    expect((await call("GET", "/invoices?status=draft", { key: key() })).body.invoices.length).toBeGreaterThan(0);
    const finalized = await call("POST", `/invoices/${created.body.id}/finalize`, { key: key() });
    expect(finalized.body.invoice.status).toBe("open");
    expect((await call("POST", `/invoices/${created.body.id}/finalize`, { key: key() })).status).toBe(409);
    expect((await call("POST", `/invoices/${created.body.id}/void`, { key: key() })).body.status).toBe("void");
    expect((await call("POST", `/invoices/${created.body.id}/void`, { key: key() })).status).toBe(409);
  });

  it("payment links: create, get, list, deactivate, activate", async () => {
    const created = await call("POST", "/payment-links", { key: key(), body: { amount: "3", description: "T-shirt" } });
    expect(created.status).toBe(201);
    expect((await call("GET", `/payment-links/${created.body.id}`, { key: key() })).status).toBe(200);
    expect((await call("GET", "/payment-links?active=true", { key: key() })).body.payment_links.length).toBe(1);
    expect((await call("POST", `/payment-links/${created.body.id}/deactivate`, { key: key() })).body.active).toBe(false);
    expect((await call("POST", `/payment-links/${created.body.id}/activate`, { key: key() })).body.active).toBe(true);
  });

  it("checkout sessions: create, get, list", async () => {
    const created = await call("POST", "/checkout-sessions", {
      key: key(),
      body: { amount: "7", success_url: "https://shop.example/ok", cancel_url: null, expires_in_minutes: 30 },
    });
    expect(created.status).toBe(201);
    expect((await call("GET", `/checkout-sessions/${created.body.id}`, { key: key() })).status).toBe(200);
    expect((await call("GET", "/checkout-sessions?status=open&limit=3", { key: key() })).body.checkout_sessions.length).toBe(1);
  });

  it("webhook endpoints and deliveries: create, get, list, update, rotate, test event, delivery log, retry, resend, delete", async () => {
    const created = await call("POST", "/webhook-endpoints", {
      key: key(),
      body: { url: `${receiver.url}/hooks`, enabled_events: ["payment.completed"], description: "orders" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await call("GET", `/webhook-endpoints/${id}`, { key: key() })).status).toBe(200);
    expect((await call("GET", "/webhook-endpoints", { key: key() })).body.webhook_endpoints.length).toBe(1);
    expect((await call("POST", `/webhook-endpoints/${id}`, { key: key(), body: { enabled_events: ["*"] } })).body.enabled_events).toEqual(["*"]);
    expect((await call("POST", `/webhook-endpoints/${id}/rotate-secret`, { key: key() })).body.previous_secret_expires_at).not.toBeNull();

    const test = await call("POST", `/webhook-endpoints/${id}/test`, { key: key() });
    expect(test.body).toMatchObject({ event: "webhook.test", status: "pending" });
    await t.app.webhooks.runOnce();
    const delivery = await call("GET", `/webhook-deliveries/${test.body.id}`, { key: key() });
    expect(delivery.body.attempts).toHaveLength(1);
    const log = await call("GET", `/webhook-deliveries?endpoint_id=${id}&event=webhook.test&status=succeeded`, { key: key() });
    expect(log.body.webhook_deliveries.map((d: any) => d.id)).toEqual([test.body.id]);
    expect((await call("POST", `/webhook-deliveries/${test.body.id}/retry`, { key: key() })).body.status).toBe("pending");
    const resent = await call("POST", `/webhook-endpoints/${id}/resend`, { key: key(), body: { event_id: test.body.event_id } });
    expect(resent.body).toMatchObject({ id: test.body.id, status: "pending" });

    expect((await call("DELETE", `/webhook-endpoints/${id}`, { key: key() })).body).toEqual({ id, object: "webhook_endpoint", deleted: true });
  });

  it("errors: 400, 401, 404, 413, 414, 415, 429 and 431 with the one-field body", async () => {
    const bad = await call("POST", "/payments", { key: key(), body: { amount: "1.123456789" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^amount /);
    expect((await call("GET", "/payments?limit=0", { key: key() })).status).toBe(400);
    for (const authorization of [undefined, "Bearer pk_test_unknown", "Basic dXNlcjpwYXNz"]) {
      const refused = await call("GET", "/payments", { headers: authorization ? { authorization } : {} });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe("Bearer");
      expect(refused.body).toEqual({ error: "Unauthorized" });
    }
    // Past Node's 16 KiB of request line and headers: the parser refuses them before any route.
    const longLine = await call("GET", `/payments?starting_after=${"p".repeat(20_000)}`, { key: key() });
    expect([longLine.status, longLine.body, longLine.headers.get("content-type")]).toEqual([414, { error: "Request line too long" }, "application/json"]);
    const bigHeader = await call("GET", "/payments", { key: key(), headers: { "x-padding": "h".repeat(20_000) } });
    expect([bigHeader.status, bigHeader.body]).toEqual([431, { error: "Request header fields too large" }]);
    expect((await call("GET", "/invoices/inv_unknown", { key: key() })).status).toBe(404);
    expect((await call("POST", "/customers", { key: key(), rawBody: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415);
    const huge = JSON.stringify({ name: "x".repeat(1024 * 1024) });
    expect((await call("POST", "/customers", { key: key(), rawBody: huge, headers: { "content-type": "application/json" } })).status).toBe(413);
    // A burst on a key allowed 1 request a second: whichever seconds it spans, some are refused.
    const burst = await Promise.all(Array.from({ length: 5 }, () => call("GET", "/payments", { key: merchant.liveKey })));
    const limited = burst.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("the document's own answer matches its operation", async () => {
    const response = await fetch(`${t.url}/api/v1/openapi.json`);
    expectDocumented("GET", "/openapi.json", { status: response.status, headers: response.headers, body: await response.json() });
  });

  it("refunds: create, get, list, submit and cancel, on a simulated ledger of their own (money must arrive first)", async () => {
    const world = await startLedgerWorld("5");
    try {
      const { merchant: m, wallet } = world;
      const walk = async (method: string, path: string, body?: unknown) => {
        const answer = await world.t.api(method, path, { key: m.sandboxKey, ...(body !== undefined && { body }) });
        expectDocumented(method, path, answer);
        return answer;
      };
      const payment = (await walk("POST", "/payments", { amount: "4" })).body;
      const { destination, memo } = payment.payment_instructions;
      await submit(wallet, await signedTransaction(wallet, await fundedPayer(wallet), [payOp(destination, "4")], { memo: Memo.id(memo) }));
      await waitFor(async () => (await walk("GET", `/payments/${payment.id}`)).body, (p) => p.status === "completed");
      const created = await walk("POST", "/refunds", { payment_id: payment.id, amount: "1" });
      expect(created.status).toBe(201);
      expect((await walk("GET", `/refunds/${created.body.id}`)).body.transaction_xdr).not.toBeNull();
      expect((await walk("GET", `/refunds?payment_id=${payment.id}&status=requires_signature`)).body.refunds).toHaveLength(1);
      const tx = TransactionBuilder.fromXDR(created.body.transaction_xdr, Networks.TESTNET);
      tx.sign(m.wallet);
      expect((await walk("POST", `/refunds/${created.body.id}/submit`, { signed_transaction_xdr: tx.toEnvelope().toXDR("base64") })).body.status).toBe("succeeded");
      expect((await walk("POST", `/refunds/${created.body.id}/cancel`)).status).toBe(409);
      const other = await walk("POST", "/refunds", { payment_id: payment.id });
      expect((await walk("POST", `/refunds/${other.body.id}/cancel`)).body.status).toBe("canceled");
      expect((await walk("POST", "/refunds", { payment_id: payment.id, amount: "4" })).status).toBe(400);
    } finally {
      await world.t.close();
    }
  });

  it("covered every operation's success answer", () => {
    const missing = Object.entries<any>(doc.paths).flatMap(([template, item]) =>
      HTTP_METHODS.filter((m) => item[m])
        .map((m) => ({ key: `${m.toUpperCase()} ${template}`, success: Object.keys(item[m].responses).find((s) => s.startsWith("2"))! }))
        .filter(({ key, success }) => !seen.get(key)?.has(Number(success)))
        .map(({ key }) => key),
    );
    expect(missing).toEqual([]);
  });
});

/** Whether the document's schema of `method path`'s body takes `body`. */
function documentTakes(method: string, path: string, body: unknown): boolean {
  return validatorAt(pointer("paths", path, method.toLowerCase(), "requestBody", "content", "application/json", "schema"))(body) as boolean;
}

describe("the request schemas take what the server takes, and refuse what it refuses", () => {
  const issuer = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5";
  /** `count` distinct assets (XLM, then credit assets of one issuer). */
  const assets = (count: number) => [{ asset_code: "XLM" }, ...Array.from({ length: count - 1 }, (_, i) => ({ asset_code: `A${i}`, issuer_address: issuer }))];

  // Bodies whose fate the schema alone decides: the taken ones name only XLM, which every
  // organization has enabled. [body, the field a refusal names, or null when it is taken]
  const PAYMENTS: [Record<string, unknown>, string | null][] = [
    [{ amount: "1" }, null],
    [{ amount: "1", pricing_currency: "USD", pricing_amount: "2" }, null],
    [{ amount: "1", asset: "XLM", description: "quickstart" }, null],
    [{ amount: "1", settlement_asset: { asset_code: "XLM" }, allowed_assets: [{ asset_code: "XLM", issuer_address: null }] }, null],
    [{ amount: "1", expires_in_minutes: 10080, metadata: { a: "b" }, customer_id: null, description: null }, null],
    [{}, "amount"],
    [{ description: "no amount" }, "amount"],
    [{ amount: "1", pricing_currency: "USD" }, "pricing_amount"],
    [{ pricing_amount: "2" }, "pricing_currency"],
    [{ amount: "1", asset: "XLM", settlement_asset: { asset_code: "XLM" } }, "asset"],
    [{ amount: "1", settlement_asset: { asset_code: "USDC" } }, "settlement_asset.issuer_address"],
    [{ amount: "1", settlement_asset: { asset_code: "XLM", issuer_address: issuer } }, "settlement_asset.issuer_address"],
    [{ amount: "1", settlement_asset: { asset_code: "USDC", issuer_address: "G123" } }, "settlement_asset.issuer_address"],
    [{ amount: "1", allowed_assets: [] }, "allowed_assets"],
    [{ amount: "1", allowed_assets: assets(21) }, "allowed_assets"],
    [{ amount: "1", allowed_assets: [{ asset_code: "XLM" }, { asset_code: "XLM" }] }, "allowed_assets"],
    [{ amount: "1", description: "d".repeat(501) }, "description"],
    [{ amount: "1", customer_id: "c".repeat(65) }, "customer_id"],
    [{ amount: `${"0".repeat(32)}1` }, "amount"],
    [{ amount: "1", pricing_currency: "usd", pricing_amount: "2" }, "pricing_currency"],
    [{ amount: "1", expires_in_minutes: 4 }, "expires_in_minutes"],
    [{ amount: "1", expires_in_minutes: 60.5 }, "expires_in_minutes"],
    [{ amount: "1", metadata: { ["k".repeat(41)]: "v" } }, "metadata"],
    [{ amount: "1", surprise: true }, "surprise"],
  ];
  const INVOICES: [Record<string, unknown>, string | null][] = [
    [{ amount: "10" }, null],
    [{ items: [{ description: "A", quantity: "2", unit_amount: "5" }] }, null],
    [{ amount: "10", items: [{ description: "A", quantity: "2", unit_amount: "5" }], due_in_days: 365 }, null],
    [{}, "amount"],
    [{ description: "no amount, no items" }, "amount"],
    [{ amount: "10", due_in_days: 0 }, "due_in_days"],
    [{ items: [] }, "items"],
    [{ items: [{ description: "A", quantity: "1234567890", unit_amount: "5" }] }, "items[0].quantity"],
    [{ amount: "10", customer_id: "c".repeat(65) }, "customer_id"],
  ];

  for (const [path, table] of [["/payments", PAYMENTS], ["/invoices", INVOICES]] as const) {
    it(`POST ${path}: ${table.length} bodies, the document and the server agree on each`, async () => {
      const disagreements: string[] = [];
      for (const [body, refusedField] of table) {
        const answer = await call("POST", path, { key: merchant.sandboxKey, body });
        const taken = answer.status === 201;
        if (documentTakes("POST", path, body) !== taken) disagreements.push(`${JSON.stringify(body).slice(0, 80)}: document ${!taken}, server ${answer.status} ${answer.raw}`);
        expect(taken, `${JSON.stringify(body).slice(0, 80)}: ${answer.raw}`).toBe(refusedField === null);
        if (refusedField !== null) expect(answer.body.error.startsWith(`${refusedField} `), answer.body.error).toBe(true);
      }
      expect(disagreements).toEqual([]);
    });
  }

  it("declares the defaults the server applies", async () => {
    const bodyOf = (path: string) => doc.paths[path].post.requestBody.content["application/json"].schema;
    expect(bodyOf("/payments").properties.expires_in_minutes.default).toBe(60);
    expect(bodyOf("/checkout-sessions").properties.expires_in_minutes.default).toBe(60);
    expect(bodyOf("/invoices").properties.due_in_days.default).toBe(30);
    const payment = await call("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    expect(Date.parse(payment.body.expires_at) - Date.parse(payment.body.created_at)).toBe(60 * 60_000);
    const invoice = await call("POST", "/invoices", { key: merchant.sandboxKey, body: { amount: "1" } });
    expect(Date.parse(invoice.body.due_at) - Date.parse(invoice.body.created_at)).toBe(30 * 24 * 60 * 60_000);
  });
});

describe("the webhooks section describes what the service sends", () => {
  // An app of its own: the walk's app gives up on a delivery after 300 ms, which a loaded machine
  // can take, and a delivery given up would be retried only a minute later.
  let hooks: TestApp;
  beforeAll(async () => {
    hooks = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  });
  afterAll(() => hooks.close());

  it("every event kind has a webhook whose body and headers match real deliveries", async () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_KINDS].sort());
    const { sandboxKey: key } = await hooks.createMerchant();
    const callHooks = async (method: string, path: string, options: ApiOptions = {}) => {
      const answer = await hooks.api(method, path, options);
      expectDocumented(method, path, answer);
      return answer;
    };
    const endpoint = await callHooks("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}/every-event`, enabled_events: ["*"] } });
    // Moves that emit all but payment.failed (a transaction refused by the ledger) and refunds (test/refunds*).
    const paid = await callHooks("POST", "/payments", { key, body: { amount: "2" } });
    await callHooks("POST", `/payments/${paid.body.id}/complete`, { key });
    const session = await callHooks("POST", "/checkout-sessions", { key, body: { amount: "3" } });
    await callHooks("POST", `/payments/${session.body.payment_intent_id}/complete`, { key });
    const invoiceBody = { items: [{ description: "Hours", quantity: "2", unit_amount: "5" }] };
    const toPay = await callHooks("POST", "/invoices", { key, body: invoiceBody });
    const finalized = await callHooks("POST", `/invoices/${toPay.body.id}/finalize`, { key });
    const invoicePayment = (await callHooks("GET", `/checkout-sessions/${finalized.body.invoice.checkout_session_id}`, { key })).body.payment_intent_id;
    await callHooks("POST", `/payments/${invoicePayment}/complete`, { key });
    const toVoid = await callHooks("POST", "/invoices", { key, body: invoiceBody });
    await callHooks("POST", `/invoices/${toVoid.body.id}/finalize`, { key });
    await callHooks("POST", `/invoices/${toVoid.body.id}/void`, { key });
    await callHooks("POST", `/webhook-endpoints/${endpoint.body.id}/test`, { key });
    for (let cycle = await hooks.app.webhooks.runOnce(); cycle.fannedOut + cycle.sent > 0; cycle = await hooks.app.webhooks.runOnce());

    const deliveries = receiver.at("/every-event");
    const kinds = new Set<string>();
    for (const delivery of deliveries) {
      const body = JSON.parse(delivery.rawBody);
      kinds.add(body.event);
      const operation = doc.webhooks[body.event].post;
      const validate = validatorAt(pointer("webhooks", body.event, "post", "requestBody", "content", "application/json", "schema"));
      expect(validate(body), `${body.event}: ${JSON.stringify(validate.errors)}`).toBe(true);
      for (const parameter of operation.parameters) {
        const header = parameter.$ref ? doc.components.parameters[String(parameter.$ref).replace("#/components/parameters/", "")] : parameter;
        const value = delivery.headers[header.name.toLowerCase()];
        expect(value, `${body.event}: header ${header.name}`).toBeDefined();
        const at = parameter.$ref ? pointer("components", "parameters", header.name, "schema") : null;
        const valid = at ? validatorAt(at)(value) : value === header.schema.const;
        expect(valid, `${body.event}: header ${header.name} = ${value}`).toBe(true);
      }
    }
    expect([...kinds].sort()).toEqual(EVENT_KINDS.filter((kind) => kind !== "payment.failed" && !kind.startsWith("refund.")).sort());
  });
});

describe("a client generated from the document", () => {
  // Type-checking takes seconds alone, and several times that beside other test files.
  it("type-checks with openapi-typescript's types and creates and reads a payment through openapi-fetch", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-client-"));
    try {
      // api.ts, not api.d.ts: the generated types are checked too (skipLibCheck only skips the libraries').
      writeFileSync(join(dir, "api.ts"), astToString(await openapiTS(new URL(`${t.url}/api/v1/openapi.json`))));
      // A caller as a merchant would write it. Type-only imports: it runs with the test's openapi-fetch.
      writeFileSync(
        join(dir, "client.ts"),
        `import type createClient from "openapi-fetch";
import type { components, paths, webhooks } from "./api";

export async function createAndReadPayment(create: typeof createClient, baseUrl: string, key: string) {
  const client = create<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const created = await client.POST("/payments", {
    body: { amount: "4.2", description: "typed client", metadata: { cart: "7" } },
    params: { header: { "Idempotency-Key": "typed-client-1" } },
  });
  if (!created.data) throw new Error(created.error?.error);
  const payment: components["schemas"]["Payment"] = created.data;
  const read = await client.GET("/payments/{id}", { params: { path: { id: payment.id } } });
  const missing = await client.GET("/payments/{id}", { params: { path: { id: "pay_missing" } } });
  const notFound: string | undefined = missing.error?.error;
  // @ts-expect-error amounts are strings, never numbers
  await client.POST("/payments", { body: { amount: 4.2 } });
  // @ts-expect-error amount, or the pricing pair, is required
  await client.POST("/payments", { body: { description: "no amount" } });
  // @ts-expect-error the pricing pair goes together
  await client.POST("/payments", { body: { amount: "1", pricing_currency: "USD" } });
  await client.POST("/payments", { body: { pricing_currency: "USD", pricing_amount: "10" } });
  // @ts-expect-error asset (the quickstart form) or settlement_asset, not both
  await client.POST("/payments", { body: { amount: "1", asset: "XLM", settlement_asset: { asset_code: "XLM" } } });
  // @ts-expect-error a credit asset names its issuer
  await client.POST("/payments", { body: { amount: "1", allowed_assets: [{ asset_code: "USDC" }] } });
  // @ts-expect-error an invoice has an amount or items
  await client.POST("/invoices", { body: { description: "nothing to pay" } });
  await client.POST("/invoices", { body: { items: [{ description: "Hours", quantity: "2", unit_amount: "5" }] } });
  return { created: created.response.status, payment: read.data, notFound };
}

/** A merchant's webhook handler, typed by the document's webhooks. */
export function onEvent(body: components["schemas"]["PaymentCompletedEvent"] | components["schemas"]["InvoicePaidEvent"]): string {
  if (body.event === "payment.completed") return body.data.tx_hash ?? body.data.status;
  const invoice: webhooks["invoice.paid"]["post"]["requestBody"]["content"]["application/json"]["data"] = body.data;
  return invoice.invoice_number;
}
`,
      );
      const compilerOptions: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
        types: [],
        // The temporary directory has no node_modules: openapi-fetch's types come from the project's.
        paths: { "openapi-fetch": [join(process.cwd(), "node_modules/openapi-fetch/dist/index.d.mts")] },
      };
      // The same call without the directive: the compiler must refuse it, naming the missing field.
      writeFileSync(
        join(dir, "missing-amount.ts"),
        `import type createClient from "openapi-fetch";
import type { paths } from "./api";

export const createWithoutAmount = (client: ReturnType<typeof createClient<paths>>) => client.POST("/payments", { body: { description: "no amount" } });
`,
      );
      // One program for both files: type-checking is most of this test's time.
      const program = ts.createProgram([join(dir, "client.ts"), join(dir, "missing-amount.ts")], compilerOptions);
      const diagnostics = ts.getPreEmitDiagnostics(program);
      const refused = diagnostics.filter((d) => d.file?.fileName === join(dir, "missing-amount.ts"));
      expect(refused).toHaveLength(1);
      // TypeScript names the body's type, a union of the forms: the first one requires amount.
      expect(ts.flattenDiagnosticMessageText(refused[0]!.messageText, "\n")).toMatch(/^Type '\{ description: string; \}' is not assignable to type '\(\{ amount: string;/);
      expect(diagnostics.filter((d) => !refused.includes(d)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);

      const { createAndReadPayment } = await import(join(dir, "client.ts"));
      const result = await createAndReadPayment(createClient, `${t.url}/api/v1`, merchant.sandboxKey);
      expect(result.created).toBe(201);
      expect(result.payment).toMatchObject({ object: "payment_intent", amount: "4.2000000", status: "pending", metadata: { cart: "7" } });
      expect(result.notFound).toBe("Not found");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
