import { describe, expect, it } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const CUSTOMER_FIELDS = ["id", "object", "email", "name", "description", "metadata", "created_at", "updated_at"];
const customerCount = () => t.database.db.customer.count();

describe("POST /customers", () => {
  it("creates a customer: 201 with every field", async () => {
    const res = await t.api("POST", "/customers", {
      key: merchant.sandboxKey,
      body: { email: "ada@example.com", name: "Ada", description: "VIP", metadata: { crm_id: "7" } },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...CUSTOMER_FIELDS].sort());
    expect(res.body).toMatchObject({
      object: "customer",
      email: "ada@example.com",
      name: "Ada",
      description: "VIP",
      metadata: { crm_id: "7" },
    });
    expect(res.body.id).toMatch(/^cus_[0-9A-Za-z]{16,}$/);
    expect(res.body.created_at).toBe(res.body.updated_at);
    const row = await t.database.db.customer.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ organizationId: merchant.organizationId, environment: "sandbox" });
  });

  it.each([
    // a blank customer (an empty form sent): #27; words-for-people.test.ts has the GraphQL side and updates
    ["no name and no email", {}, "name or email is required"],
    ["a malformed email", { email: "not-an-email" }, "email must be a valid email address"],
    ["an email as a number", { email: 5 }, "email must be a string"],
    ["an unknown field", { phone: "123" }, "phone is not a recognized field"],
    ["a description of 501 characters", { description: "d".repeat(501) }, "description must be at most 500 characters"],
    ["a name of 257 characters", { name: "n".repeat(257) }, "name must be at most 256 characters"],
    ["a non-string metadata value", { metadata: { a: 1 } }, "metadata.a must be a string"],
    ["metadata with 51 keys", { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "metadata must have at most 50 keys"],
  ])("refuses %s with 400 naming the field, writing nothing", async (_name, body, message) => {
    const before = await customerCount();
    const res = await t.api("POST", "/customers", { key: merchant.sandboxKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message });
    expect(await customerCount()).toBe(before);
  });
});

describe("GET /customers/{id}", () => {
  it("reads a customer as created", async () => {
    const created = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Grace" } });
    const res = await t.api("GET", `/customers/${created.body.id}`, { key: merchant.sandboxKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it("answers 404 for an unknown id, another environment's and another organization's customer", async () => {
    const other = await t.createMerchant();
    const created = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Hidden" } });
    for (const [id, key] of [
      ["cus_doesnotexist000000000", merchant.sandboxKey],
      [created.body.id, merchant.liveKey],
      [created.body.id, other.sandboxKey],
    ]) {
      const res = await t.api("GET", `/customers/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found" });
    }
  });
});

describe("POST /customers/{id} (update)", () => {
  it("changes only the fields given, null clears one, and updated_at moves", async () => {
    const created = await t.api("POST", "/customers", {
      key: merchant.sandboxKey,
      body: { email: "old@example.com", name: "Old", description: "keep", metadata: { a: "1" } },
    });
    t.clock.advance(5000);
    const res = await t.api("POST", `/customers/${created.body.id}`, { key: merchant.sandboxKey, body: { name: "New", email: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, name: "New", email: null, description: "keep", metadata: { a: "1" } });
    expect(res.body.created_at).toBe(created.body.created_at);
    expect(Date.parse(res.body.updated_at) - Date.parse(created.body.updated_at)).toBeGreaterThanOrEqual(5000);

    const cleared = await t.api("POST", `/customers/${created.body.id}`, { key: merchant.sandboxKey, body: { metadata: null, description: null } });
    expect(cleared.body).toMatchObject({ name: "New", email: null, description: null, metadata: null });
    const got = await t.api("GET", `/customers/${created.body.id}`, { key: merchant.sandboxKey });
    expect(got.body).toEqual(cleared.body);
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const created = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { email: "keep@example.com" } });
    for (const [body, message] of [
      [{ email: "bad" }, "email must be a valid email address"],
      [{ nickname: "x" }, "nickname is not a recognized field"],
    ] as const) {
      const res = await t.api("POST", `/customers/${created.body.id}`, { key: merchant.sandboxKey, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: message });
    }
    const got = await t.api("GET", `/customers/${created.body.id}`, { key: merchant.sandboxKey });
    expect(got.body).toEqual(created.body);
  });

  it("answers 404 for another organization's or environment's customer and leaves it unchanged", async () => {
    const other = await t.createMerchant();
    const created = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Mine" } });
    for (const key of [other.sandboxKey, merchant.liveKey]) {
      const res = await t.api("POST", `/customers/${created.body.id}`, { key, body: { name: "Stolen" } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found" });
    }
    const row = await t.database.db.customer.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.name).toBe("Mine");
  });
});

describe("GET /customers (list)", () => {
  it("lists the caller's customers newest first with has_more and cursors", async () => {
    const lister = await t.createMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await t.api("POST", "/customers", { key: lister.sandboxKey, body: { name: `C${i}` } })).body.id);
      t.clock.advance(1000);
    }
    await t.api("POST", "/customers", { key: lister.liveKey, body: { name: "live one" } });
    const newest = [...ids].reverse();

    const all = await t.api("GET", "/customers", { key: lister.sandboxKey });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["customers", "has_more"]);
    expect(all.body.customers.map((c: any) => c.id)).toEqual(newest);
    expect(all.body.has_more).toBe(false);
    expect(all.body.customers[0]).toHaveProperty("object", "customer");

    const page = await t.api("GET", "/customers?limit=2", { key: lister.sandboxKey });
    expect(page.body.customers.map((c: any) => c.id)).toEqual(newest.slice(0, 2));
    expect(page.body.has_more).toBe(true);
    const next = await t.api("GET", `/customers?limit=2&starting_after=${newest[1]}`, { key: lister.sandboxKey });
    expect(next.body.customers.map((c: any) => c.id)).toEqual(newest.slice(2, 4));
    const prev = await t.api("GET", `/customers?ending_before=${newest[2]}`, { key: lister.sandboxKey });
    expect(prev.body.customers.map((c: any) => c.id)).toEqual(newest.slice(0, 2));

    const both = await t.api("GET", `/customers?starting_after=${newest[1]}&ending_before=${newest[3]}`, { key: lister.sandboxKey });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: "starting_after and ending_before are mutually exclusive" });
    const tooMany = await t.api("GET", "/customers?limit=101", { key: lister.sandboxKey });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ error: "limit must be at most 100" });

    const live = await t.api("GET", "/customers", { key: lister.liveKey });
    expect(live.body.customers.map((c: any) => c.name)).toEqual(["live one"]);
  });
});
