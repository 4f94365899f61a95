import { describe, expect, it } from "vitest";
import { deleteExpiredIdempotencyRecords, runIdempotently } from "../src/modules/idempotency/idempotency.service.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

let counter = 0;
const newKey = () => `key-${Date.now()}-${counter++}`;
const post = (path: string, body: unknown, key: string, apiKey = merchant.sandboxKey) =>
  t.api("POST", path, { key: apiKey, body, headers: { "idempotency-key": key } });

describe("Idempotency-Key on REST POSTs", () => {
  it("replays the first response byte-for-byte with Idempotent-Replayed: true and creates one payment", async () => {
    const key = newKey();
    const before = await t.database.db.payment.count();
    const first = await post("/payments", { amount: "3" }, key);
    const second = await post("/payments", { amount: "3" }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.raw).toBe(first.raw);
    expect(await t.database.db.payment.count()).toBe(before + 1);
  });

  it("answers 409 when the same key comes with a different body or path", async () => {
    const key = newKey();
    await post("/payments", { amount: "3" }, key);
    const otherBody = await post("/payments", { amount: "4" }, key);
    expect(otherBody).toMatchObject({ status: 409, body: { error: "Idempotency-Key was already used with a different request" } });
    const otherPath = await post("/customers", { name: "x" }, key);
    expect(otherPath.status).toBe(409);
  });

  it("keeps keys per API key: another key's identical request creates its own resource", async () => {
    const key = newKey();
    const a = await post("/customers", { name: "A" }, key);
    const b = await post("/customers", { name: "A" }, key, merchant.liveKey);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it("stores 4xx answers and replays them", async () => {
    const key = newKey();
    const first = await post("/invoices", { amount: "1", due_in_days: 0 }, key);
    const second = await post("/invoices", { amount: "1", due_in_days: 0 }, key);
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
    expect(second.raw).toBe(first.raw);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });

  it("forgets a key after 24 hours", async () => {
    const key = newKey();
    const first = await post("/customers", { name: "Old" }, key);
    t.clock.advance(24 * 60 * 60_000 + 1000);
    const again = await post("/customers", { name: "Old" }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
  });

  it("covers actions too: a replayed finalize answers 200 again instead of 409", async () => {
    const invoice = await post("/invoices", { amount: "2" }, newKey());
    const key = newKey();
    const first = await t.api("POST", `/invoices/${invoice.body.id}/finalize`, { key: merchant.sandboxKey, headers: { "idempotency-key": key } });
    const second = await t.api("POST", `/invoices/${invoice.body.id}/finalize`, { key: merchant.sandboxKey, headers: { "idempotency-key": key } });
    expect(first.status).toBe(200);
    expect(second).toMatchObject({ status: 200, raw: first.raw });
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });

  it("refuses a key longer than 255 characters with 400", async () => {
    const res = await post("/customers", { name: "x" }, "k".repeat(256));
    expect(res).toMatchObject({ status: 400, body: { error: "Idempotency-Key must be 1 to 255 characters" } });
    expect((await post("/customers", { name: "x" }, "k".repeat(255))).status).toBe(201);
  });

  it.each([
    ["/payments", { amount: "1.5" }, "payment"],
    ["/checkout-sessions", { amount: "1.5" }, "checkoutSession"],
    ["/invoices", { amount: "1.5" }, "invoice"],
    ["/payment-links", { amount: "1.5" }, "paymentLink"],
    ["/customers", { name: "Concurrent" }, "customer"],
  ] as const)("50 concurrent identical POST %s with one key create exactly one resource", async (path, body, model) => {
    const key = newKey();
    const count = () => (t.database.db[model] as unknown as { count(): Promise<number> }).count();
    const before = await count();
    const results = await Promise.all(Array.from({ length: 50 }, () => post(path, body, key)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(results.map((r) => r.raw)).size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(49);
    expect(await count()).toBe(before + 1);
  });
});

describe("idempotencyKey on GraphQL create mutations", () => {
  const createInvoice = `mutation($input: CreateInvoiceInput!, $key: String) {
    createInvoice(input: $input, idempotencyKey: $key) { id invoiceNumber amount status }
  }`;

  it("creates once and answers the same resource to a retry; 409 CONFLICT for another input", async () => {
    const key = newKey();
    const before = await t.database.db.invoice.count();
    const first = await t.graphql(createInvoice, { input: { amount: "6" }, key }, merchant.sandboxKey);
    const second = await t.graphql(createInvoice, { input: { amount: "6" }, key }, merchant.sandboxKey);
    expect(first.body.errors).toBeUndefined();
    expect(second.body.data.createInvoice).toEqual(first.body.data.createInvoice);
    expect(await t.database.db.invoice.count()).toBe(before + 1);
    const other = await t.graphql(createInvoice, { input: { amount: "7" }, key }, merchant.sandboxKey);
    expect(other.body.errors[0]).toMatchObject({
      message: "Idempotency-Key was already used with a different request",
      extensions: { code: "CONFLICT" },
    });
  });

  it("replays a validation error as the same error", async () => {
    const key = newKey();
    const first = await t.graphql(createInvoice, { input: { amount: "6", dueInDays: 400 }, key }, merchant.sandboxKey);
    const second = await t.graphql(createInvoice, { input: { amount: "6", dueInDays: 400 }, key }, merchant.sandboxKey);
    expect(first.body.errors[0]).toMatchObject({ message: "Due in days: must be at most 365", extensions: { code: "BAD_REQUEST" } });
    expect(second.body.errors[0]).toMatchObject({ message: "Due in days: must be at most 365", extensions: { code: "BAD_REQUEST" } });
  });

  it.each([
    ["createPayment", "CreatePaymentInput", { amount: "2" }, "payment"],
    ["createCustomer", "CustomerInput", { name: "G" }, "customer"],
    ["createCheckoutSession", "CreateCheckoutSessionInput", { amount: "2" }, "checkoutSession"],
    ["createPaymentLink", "CreatePaymentLinkInput", { amount: "2" }, "paymentLink"],
  ] as const)("%s: 50 concurrent calls with one idempotencyKey create one resource", async (mutation, inputType, input, model) => {
    const key = newKey();
    const count = () => (t.database.db[model] as unknown as { count(): Promise<number> }).count();
    const before = await count();
    const query = `mutation($input: ${inputType}!, $key: String) { ${mutation}(input: $input, idempotencyKey: $key) { id } }`;
    const results = await Promise.all(Array.from({ length: 50 }, () => t.graphql(query, { input, key }, merchant.sandboxKey)));
    expect(results.every((r) => r.body.errors === undefined)).toBe(true);
    expect(new Set(results.map((r) => r.body.data[mutation].id)).size).toBe(1);
    expect(await count()).toBe(before + 1);
  });
});

describe("finding 7: idempotencyKey on createWebhookEndpoint", () => {
  const createEndpoint = `mutation($input: CreateWebhookEndpointInput!, $key: String) {
    createWebhookEndpoint(input: $input, idempotencyKey: $key) { secret webhookEndpoint { id url } }
  }`;
  const input = { url: "https://93.184.216.34/hooks", enabledEvents: ["payment.completed"] };

  it("finding 7: createWebhookEndpoint replays: a retry with the same idempotencyKey creates nothing new and answers the endpoint and its secret", async () => {
    const key = newKey();
    const before = await t.database.db.webhookEndpoint.count();
    const results = await Promise.all(Array.from({ length: 10 }, () => t.graphql(createEndpoint, { input, key }, merchant.sandboxKey)));
    expect(results.every((r) => r.body.errors === undefined)).toBe(true);
    const first = results[0]!.body.data.createWebhookEndpoint;
    for (const r of results) expect(r.body.data.createWebhookEndpoint).toEqual(first);
    expect(first.secret).toMatch(/^whsec_/);
    expect(await t.database.db.webhookEndpoint.count()).toBe(before + 1);
    const other = await t.graphql(createEndpoint, { input: { ...input, url: "https://93.184.216.34/other" }, key }, merchant.sandboxKey);
    expect(other.body.errors[0]).toMatchObject({ extensions: { code: "CONFLICT" } });
  });
});

describe("runIdempotently", () => {
  const request = (key: string) => ({ apiKeyId: "key_test", key, requestHash: "h" });

  it("does not store a 5xx answer: the retry runs again and its answer is kept", async () => {
    const key = newKey();
    let runs = 0;
    const failing = await runIdempotently(t.deps, request(key), async () => ({ status: 503, body: `{"run":${++runs}}` }));
    expect(failing).toEqual({ response: { status: 503, body: '{"run":1}' }, replayed: false });
    const retried = await runIdempotently(t.deps, request(key), async () => ({ status: 201, body: `{"run":${++runs}}` }));
    expect(retried).toEqual({ response: { status: 201, body: '{"run":2}' }, replayed: false });
    const replayed = await runIdempotently(t.deps, request(key), async () => ({ status: 201, body: `{"run":${++runs}}` }));
    expect(replayed).toEqual({ response: { status: 201, body: '{"run":2}' }, replayed: true });
  });

  it("releases the key when the work throws, so a retry can succeed", async () => {
    const key = newKey();
    await expect(runIdempotently(t.deps, request(key), async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    const retried = await runIdempotently(t.deps, request(key), async () => ({ status: 200, body: "{}" }));
    expect(retried.replayed).toBe(false);
  });

  it("makes duplicates wait for the first request's answer", async () => {
    const key = newKey();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = runIdempotently(t.deps, request(key), async () => {
      await gate;
      return { status: 201, body: '{"first":true}' };
    });
    // The second starts only once the first holds the key.
    while (!(await t.database.db.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId: "key_test", key } } }))) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    let secondRan = false;
    const second = runIdempotently(t.deps, request(key), async () => {
      secondRan = true;
      return { status: 201, body: '{"first":false}' };
    });
    release();
    expect((await first).replayed).toBe(false);
    expect(await second).toEqual({ response: { status: 201, body: '{"first":true}' }, replayed: true });
    expect(secondRan).toBe(false);
  });

  it("deleteExpiredIdempotencyRecords removes only records older than 24 hours", async () => {
    const old = newKey();
    await runIdempotently(t.deps, request(old), async () => ({ status: 200, body: "{}" }));
    t.clock.advance(24 * 60 * 60_000 + 1000);
    const fresh = newKey();
    await runIdempotently(t.deps, request(fresh), async () => ({ status: 200, body: "{}" }));
    expect(await deleteExpiredIdempotencyRecords(t.deps, 1000)).toBeGreaterThanOrEqual(1);
    const keys = (await t.database.db.idempotencyRecord.findMany({ where: { apiKeyId: "key_test" } })).map((r) => r.key);
    expect(keys).toContain(fresh);
    expect(keys).not.toContain(old);
  });
});
