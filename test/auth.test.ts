import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let other: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  other = await t.createMerchant();
});
afterAll(() => t.close());

const UNAUTHORIZED = '{"error":"Unauthorized"}';

describe("authentication", () => {
  const unauthorizedCases: [string, Record<string, string>][] = [
    ["a missing Authorization header", {}],
    ["an empty Bearer", { authorization: "Bearer " }],
    ["a non-Bearer scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["a malformed key", { authorization: "Bearer pk_test_short" }],
    ["a key with an unknown prefix", { authorization: `Bearer sk_test_${"a".repeat(32)}` }],
    ["an unknown well-formed key", { authorization: `Bearer pk_test_${"A".repeat(32)}` }],
    ["an unknown live key", { authorization: `Bearer pk_live_${"b".repeat(32)}` }],
  ];

  for (const [name, headers] of unauthorizedCases) {
    it(`answers 401 {"error":"Unauthorized"} exactly for ${name}`, async () => {
      for (const [method, path] of [["GET", "/payments"], ["POST", "/payments"], ["GET", "/customers"], ["GET", "/nowhere"]] as const) {
        const res = await t.api(method, path, { headers, ...(method === "POST" && { body: { amount: "1" } }) });
        expect(res.status).toBe(401);
        expect(res.raw).toBe(UNAUTHORIZED);
      }
    });
  }

  it("answers 401 for a key whose test/live prefix was swapped", async () => {
    const swapped = merchant.sandboxKey.replace("pk_test_", "pk_live_");
    const res = await t.api("GET", "/payments", { key: swapped });
    expect(res.status).toBe(401);
    expect(res.raw).toBe(UNAUTHORIZED);
  });

  it("answers 401 for a revoked key, and writes nothing with it", async () => {
    const key = await createApiKey(t.deps, { organizationId: merchant.organizationId, environment: "sandbox" });
    expect((await t.api("GET", "/payments", { key })).status).toBe(200);
    await revokeApiKey(t.deps, { prefix: key.slice(0, "pk_test_".length + 8) });
    const before = await t.database.db.payment.count();
    for (const [method, path] of [["GET", "/payments"], ["POST", "/payments"]] as const) {
      const res = await t.api(method, path, { key, ...(method === "POST" && { body: { amount: "1" } }) });
      expect(res.status).toBe(401);
      expect(res.raw).toBe(UNAUTHORIZED);
    }
    expect(await t.database.db.payment.count()).toBe(before);
    // The organization's other keys keep working.
    expect((await t.api("GET", "/payments", { key: merchant.sandboxKey })).status).toBe(200);
  });

  it("stores keys only hashed: no column of the ApiKey table holds a plain key", async () => {
    const rows = await t.database.db.apiKey.findMany({ where: { organizationId: merchant.organizationId } });
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(merchant.sandboxKey);
    expect(dump).not.toContain(merchant.liveKey);
    expect(dump).not.toContain(merchant.sandboxKey.slice("pk_test_".length));
    for (const row of rows) {
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.prefix.length).toBeLessThan(merchant.sandboxKey.length);
    }
    const sandboxRow = rows.find((r) => merchant.sandboxKey.startsWith(r.prefix))!;
    expect(sandboxRow.hash).toBe(createHash("sha256").update(merchant.sandboxKey).digest("hex"));
    expect(sandboxRow.environment).toBe("sandbox");
  });
});

describe("environment and organization isolation", () => {
  it("pk_test_ creates in sandbox, pk_live_ in production, and neither sees the other's payment", async () => {
    const sandbox = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    const live = await t.api("POST", "/payments", { key: merchant.liveKey, body: { amount: "2" } });
    expect(sandbox.status).toBe(201);
    expect(live.status).toBe(201);
    const rows = await t.database.db.payment.findMany({ where: { id: { in: [sandbox.body.id, live.body.id] } } });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.environment]))).toEqual({
      [sandbox.body.id]: "sandbox",
      [live.body.id]: "production",
    });

    expect((await t.api("GET", `/payments/${sandbox.body.id}`, { key: merchant.sandboxKey })).status).toBe(200);
    expect((await t.api("GET", `/payments/${live.body.id}`, { key: merchant.liveKey })).status).toBe(200);
    for (const [id, key] of [[sandbox.body.id, merchant.liveKey], [live.body.id, merchant.sandboxKey]]) {
      const res = await t.api("GET", `/payments/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found" });
    }
    const sandboxList = await t.api("GET", "/payments?limit=100", { key: merchant.sandboxKey });
    const liveList = await t.api("GET", "/payments?limit=100", { key: merchant.liveKey });
    expect(sandboxList.body.payments.map((p: any) => p.id)).toContain(sandbox.body.id);
    expect(sandboxList.body.payments.map((p: any) => p.id)).not.toContain(live.body.id);
    expect(liveList.body.payments.map((p: any) => p.id)).toContain(live.body.id);
    expect(liveList.body.payments.map((p: any) => p.id)).not.toContain(sandbox.body.id);
  });

  it("another organization's payments and customers are 404 and absent from lists", async () => {
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "3" } });
    const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { email: "a@example.com" } });
    expect(customer.status).toBe(201);
    for (const path of [`/payments/${payment.body.id}`, `/customers/${customer.body.id}`]) {
      const res = await t.api("GET", path, { key: other.sandboxKey });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found" });
    }
    const update = await t.api("POST", `/customers/${customer.body.id}`, { key: other.sandboxKey, body: { name: "x" } });
    expect(update.status).toBe(404);
    const otherPayments = await t.api("GET", "/payments?limit=100", { key: other.sandboxKey });
    expect(otherPayments.body.payments).toEqual([]);
    const otherCustomers = await t.api("GET", "/customers?limit=100", { key: other.sandboxKey });
    expect(otherCustomers.body.customers).toEqual([]);
  });

  it("an unknown payment id is the same 404 as a foreign one", async () => {
    const res = await t.api("GET", "/payments/pay_doesnotexist0000000000", { key: merchant.sandboxKey });
    expect(res.status).toBe(404);
    expect(res.raw).toBe('{"error":"Not found"}');
  });
});
