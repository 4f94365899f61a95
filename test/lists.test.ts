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
  create(m: Merchant, customerId?: string): Promise<string>;
  hasCustomer: boolean;
}

const post = async (m: Merchant, path: string, body: Record<string, unknown>) => {
  const res = await t.api("POST", path, { key: m.sandboxKey, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

const cases: ListCase[] = [
  { path: "/payments", plural: "payments", hasCustomer: true, create: (m, c) => post(m, "/payments", { amount: "1", customer_id: c }) },
  {
    path: "/checkout-sessions",
    plural: "checkout_sessions",
    hasCustomer: true,
    create: (m, c) => post(m, "/checkout-sessions", { amount: "1", customer_id: c }),
  },
  { path: "/invoices", plural: "invoices", hasCustomer: true, create: (m, c) => post(m, "/invoices", { amount: "1", customer_id: c }) },
  { path: "/payment-links", plural: "payment_links", hasCustomer: false, create: (m) => post(m, "/payment-links", { amount: "1" }) },
  { path: "/customers", plural: "customers", hasCustomer: false, create: (m) => post(m, "/customers", { name: "c" }) },
];

describe.each(cases)("GET $path", ({ path, plural, create, hasCustomer }) => {
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
