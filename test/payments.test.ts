import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enableAsset, setExchangeRate } from "../src/modules/organizations/organizations.service.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { timeOrderedIds } from "../src/shared/ids.ts";
import { drawingMemoIds } from "./support/memo-ids.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
const USDC_ISSUER = Keypair.random().publicKey();
const USDC = { asset_code: "USDC", issuer_address: USDC_ISSUER };
const XLM = { asset_code: "XLM", issuer_address: null };

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  await enableAsset(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", code: "USDC", issuer: USDC_ISSUER });
});
afterAll(() => t.close());

const post = (body: unknown, key = merchant.sandboxKey) => t.api("POST", "/payments", { key, body });

/** Payment and event row counts: bad input must leave both unchanged. */
const counts = async () => ({ payments: await t.database.db.payment.count(), events: await t.database.db.event.count() });

const SPEC_FIELDS = [
  "id", "object", "amount", "settlement_asset", "allowed_assets", "paid_asset", "status", "description", "metadata",
  "checkout_url", "source_type", "customer_id", "payer_address", "tx_hash", "confirmed_at", "expires_at", "created_at",
];

describe("POST /payments", () => {
  it("creates a pending payment, normalized to 7 decimals, with a payment.created event in the outbox", async () => {
    const res = await post({ amount: "10.5", description: "Coffee" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: "payment_intent",
      amount: "10.5000000",
      status: "pending",
      settlement_asset: XLM,
      description: "Coffee",
      source_type: "direct",
      checkout_url: `http://pay.example.test/c/${res.body.id}`,
    });
    expect(res.body.id).toMatch(/^pay_[0-9A-Za-z]{16,}$/);
    const expiresInMs = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(expiresInMs).toBe(60 * 60_000);
    const events = await t.database.db.event.findMany({ where: { resourceId: res.body.id } });
    expect(events.map((e) => e.type)).toEqual(["payment.created"]);
    expect(JSON.parse(events[0]!.data)).toMatchObject({ id: res.body.id, amount: "10.5000000", pricing_currency: null });
  });

  it("returns every field of the Payment table, nulls where unset, and GET returns the same payment", async () => {
    const res = await post({ amount: "1" });
    expect(res.status).toBe(201);
    for (const field of SPEC_FIELDS) expect(res.body, field).toHaveProperty(field);
    expect(res.body).toMatchObject({
      paid_asset: null,
      description: null,
      metadata: null,
      customer_id: null,
      payer_address: null,
      tx_hash: null,
      confirmed_at: null,
    });
    expect(res.body).not.toHaveProperty("asset");
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    const got = await t.api("GET", `/payments/${res.body.id}`, { key: merchant.sandboxKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it.each([
    ["10", "10.0000000"],
    ["0.0000001", "0.0000001"],
    ["1.2", "1.2000000"],
    ["007.50", "7.5000000"],
    ["922337203685.4775807", "922337203685.4775807"],
  ])("normalizes amount %s to %s", async (amount, normalized) => {
    const res = await post({ amount });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(normalized);
    const row = await t.database.db.payment.findUnique({ where: { id: res.body.id } });
    expect(row!.amount).toBe(BigInt(normalized.replace(".", "")));
  });

  it("keeps description, metadata and explicit assets as given", async () => {
    const res = await post({
      amount: "3",
      description: "d".repeat(500),
      metadata: { order_id: "42", ["k".repeat(40)]: "v".repeat(500) },
      settlement_asset: USDC,
      allowed_assets: [USDC, XLM],
    });
    expect(res.status).toBe(201);
    expect(res.body.description).toHaveLength(500);
    expect(res.body.metadata).toEqual({ order_id: "42", ["k".repeat(40)]: "v".repeat(500) });
    expect(res.body.settlement_asset).toEqual(USDC);
    expect(res.body.allowed_assets).toEqual([USDC, XLM]);
  });

  it("defaults allowed_assets to every enabled asset of the organization", async () => {
    const res = await post({ amount: "3" });
    expect(res.body.allowed_assets).toEqual([XLM, USDC]);
  });

  describe("expiry", () => {
    it.each([5, 10080, 61])("expires_in_minutes %i sets expires_at that far after created_at", async (minutes) => {
      const res = await post({ amount: "1", expires_in_minutes: minutes });
      expect(res.status).toBe(201);
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(minutes * 60_000);
    });
  });

  describe("validation: 400 naming the field, nothing written", () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["amount as a number", { amount: 10 }, "amount must be a string"],
      ["amount zero", { amount: "0" }, "amount must be greater than 0"],
      ["amount zero with decimals", { amount: "0.0000000" }, "amount must be greater than 0"],
      ["negative amount", { amount: "-1" }, "amount must match ^\\d+(\\.\\d{1,7})?$"],
      ["amount with 8 decimals", { amount: "1.12345678" }, "amount must match ^\\d+(\\.\\d{1,7})?$"],
      ["amount in exponent form", { amount: "1e5" }, "amount must match ^\\d+(\\.\\d{1,7})?$"],
      ["amount above the maximum", { amount: "922337203685.4775808" }, "amount must be at most 922337203685.4775807"],
      ["amount far above the maximum", { amount: "99999999999999999999" }, "amount must be at most 922337203685.4775807"],
      ["description of 501 characters", { amount: "1", description: "d".repeat(501) }, "description must be at most 500 characters"],
      ["description as a number", { amount: "1", description: 5 }, "description must be a string"],
      [
        "metadata with 51 keys",
        { amount: "1", metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
        "metadata must have at most 50 keys",
      ],
      ["metadata key of 41 characters", { amount: "1", metadata: { ["k".repeat(41)]: "v" } }, "metadata keys must be 1 to 40 characters"],
      ["metadata empty key", { amount: "1", metadata: { "": "v" } }, "metadata keys must be 1 to 40 characters"],
      ["metadata value of 501 characters", { amount: "1", metadata: { note: "v".repeat(501) } }, "metadata.note must be at most 500 characters"],
      ["metadata non-string value", { amount: "1", metadata: { count: 3 } }, "metadata.count must be a string"],
      ["metadata as an array", { amount: "1", metadata: ["a"] }, "metadata must be a record"],
      ["empty allowed_assets", { amount: "1", allowed_assets: [] }, "allowed_assets must have at least 1 item"],
      [
        "asset_code of 13 characters",
        { amount: "1", settlement_asset: { asset_code: "ABCDEFGHIJKLM", issuer_address: USDC_ISSUER } },
        "settlement_asset.asset_code must be 1 to 12 alphanumeric characters",
      ],
      [
        "non-alphanumeric asset_code",
        { amount: "1", allowed_assets: [{ asset_code: "US-D", issuer_address: USDC_ISSUER }] },
        "allowed_assets[0].asset_code must be 1 to 12 alphanumeric characters",
      ],
      [
        "credit asset without issuer",
        { amount: "1", settlement_asset: { asset_code: "USDC" } },
        "settlement_asset.issuer_address must be the issuer's Stellar public key (G...)",
      ],
      [
        "credit asset with a malformed issuer",
        { amount: "1", settlement_asset: { asset_code: "USDC", issuer_address: "GNOTANADDRESS" } },
        "settlement_asset.issuer_address must be the issuer's Stellar public key (G...)",
      ],
      [
        "XLM with an issuer",
        { amount: "1", settlement_asset: { asset_code: "XLM", issuer_address: USDC_ISSUER } },
        "settlement_asset.issuer_address must be null for XLM",
      ],
      [
        "settlement asset not enabled for the organization",
        { amount: "1", settlement_asset: { asset_code: "EURC", issuer_address: USDC_ISSUER } },
        `settlement_asset EURC:${USDC_ISSUER} is not enabled for this organization`,
      ],
      [
        "allowed asset with another issuer than the enabled one",
        { amount: "1", allowed_assets: [XLM, { asset_code: "USDC", issuer_address: Keypair.random().publicKey() }] },
        "is not enabled for this organization",
      ],
      ["expires_in_minutes below 5", { amount: "1", expires_in_minutes: 4 }, "expires_in_minutes must be at least 5"],
      ["expires_in_minutes above 10080", { amount: "1", expires_in_minutes: 10081 }, "expires_in_minutes must be at most 10080"],
      ["non-integer expires_in_minutes", { amount: "1", expires_in_minutes: 5.5 }, "expires_in_minutes must be an integer"],
      ["expires_in_minutes as a string", { amount: "1", expires_in_minutes: "60" }, "expires_in_minutes must be a number"],
      ["an unknown field", { amount: "1", colour: "red" }, "colour is not a recognized field"],
      ["an unknown field inside an asset", { amount: "1", settlement_asset: { ...XLM, extra: 1 } }, "settlement_asset.extra is not a recognized field"],
      ["neither amount nor pricing", { description: "nothing to charge" }, "amount is required"],
      ["an empty body object", {}, "amount is required"],
      ["pricing_currency without pricing_amount", { pricing_currency: "USD" }, "pricing_amount is required with pricing_currency"],
      ["pricing_amount without pricing_currency", { pricing_amount: "5" }, "pricing_currency is required with pricing_amount"],
      ["lowercase pricing_currency", { pricing_currency: "usd", pricing_amount: "5" }, "pricing_currency must be an ISO 4217 code (3 uppercase letters)"],
      ["pricing_amount with 8 decimals", { pricing_currency: "USD", pricing_amount: "1.123456789" }, "pricing_amount must match ^\\d+(\\.\\d{1,7})?$"],
      ["pricing_amount zero", { pricing_currency: "USD", pricing_amount: "0" }, "pricing_amount must be greater than 0"],
      ["no exchange rate", { pricing_currency: "EUR", pricing_amount: "5" }, "No exchange rate for EUR to XLM"],
      ["quickstart asset not enabled", { amount: "1", asset: "EURC" }, "asset EURC is not enabled for this organization"],
      ["asset together with settlement_asset", { amount: "1", asset: "USDC", settlement_asset: USDC }, "asset cannot be given with settlement_asset"],
      ["unknown customer_id", { amount: "1", customer_id: "cus_doesnotexist00000000" }, "customer_id does not name a customer"],
    ];

    for (const [name, body, message] of cases) {
      it(`refuses ${name}`, async () => {
        const before = await counts();
        const res = await post(body);
        expect(res.status).toBe(400);
        expect(Object.keys(res.body)).toEqual(["error"]);
        if (message.startsWith("is not")) expect(res.body.error).toContain(message);
        else expect(res.body.error).toBe(message);
        expect(await counts()).toEqual(before);
      });
    }
  });

  describe("quickstart form", () => {
    it("accepts {amount, asset, description}: asset becomes settlement_asset, and responses never carry asset", async () => {
      const res = await post({ amount: "25", asset: "USDC", description: "Quickstart" });
      expect(res.status).toBe(201);
      expect(res.body.settlement_asset).toEqual(USDC);
      expect(res.body.amount).toBe("25.0000000");
      expect(res.body.description).toBe("Quickstart");
      expect(res.body).not.toHaveProperty("asset");
      const got = await t.api("GET", `/payments/${res.body.id}`, { key: merchant.sandboxKey });
      expect(got.body.settlement_asset).toEqual(USDC);
      expect(got.body).not.toHaveProperty("asset");
    });

    it("accepts asset XLM", async () => {
      const res = await post({ amount: "2", asset: "XLM" });
      expect(res.status).toBe(201);
      expect(res.body.settlement_asset).toEqual(XLM);
    });

    it("refuses an asset enabled only in the other environment", async () => {
      const res = await post({ amount: "2", asset: "USDC" }, merchant.liveKey);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "asset USDC is not enabled for this organization" });
    });
  });

  describe("pricing currency", () => {
    let priced: Merchant;
    beforeAll(async () => {
      priced = await t.createMerchant();
      const scope = { organizationId: priced.organizationId, environment: "sandbox" as const };
      await enableAsset(t.deps, { ...scope, code: "USDC", issuer: USDC_ISSUER });
      // one XLM costs 0.25 USD; one USDC costs 0.92 EUR
      await setExchangeRate(t.deps, { ...scope, currency: "USD", assetCode: "XLM", price: "0.25" });
      await setExchangeRate(t.deps, { ...scope, currency: "EUR", assetCode: "USDC", price: "0.92" });
    });

    it("converts pricing_currency + pricing_amount alone with the rate table and stores both", async () => {
      const res = await post({ pricing_currency: "USD", pricing_amount: "10" }, priced.sandboxKey);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ amount: "40.0000000", pricing_currency: "USD", pricing_amount: "10.0000000" });
      const row = await t.database.db.payment.findUnique({ where: { id: res.body.id } });
      expect(row).toMatchObject({ amount: 400_000_000n, pricingCurrency: "USD", pricingAmount: "10.0000000" });
      const event = await t.database.db.event.findFirstOrThrow({ where: { resourceId: res.body.id } });
      expect(JSON.parse(event.data)).toMatchObject({ pricing_currency: "USD", pricing_amount: "10.0000000" });
    });

    it("rounds a conversion up to the next stroop", async () => {
      // 1 EUR / 0.92 EUR per USDC = 1.08695652... USDC
      const res = await post({ pricing_currency: "EUR", pricing_amount: "1", settlement_asset: USDC }, priced.sandboxKey);
      expect(res.status).toBe(201);
      expect(res.body.amount).toBe("1.0869566");
    });

    it("converts a stablecoin named after its currency 1:1 when no rate is set", async () => {
      const res = await post({ pricing_currency: "USD", pricing_amount: "12.34", settlement_asset: USDC }, priced.sandboxKey);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ amount: "12.3400000", pricing_currency: "USD", pricing_amount: "12.3400000" });
    });

    it("answers 400 No exchange rate for <CUR> to <ASSET> without a rate, writing nothing", async () => {
      const before = await counts();
      const res = await post({ pricing_currency: "GBP", pricing_amount: "10" }, priced.sandboxKey);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "No exchange rate for GBP to XLM" });
      expect(await counts()).toEqual(before);
    });

    it("with amount and the pricing pair, charges amount and records the pricing pair", async () => {
      const res = await post({ amount: "5", pricing_currency: "USD", pricing_amount: "100" }, priced.sandboxKey);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ amount: "5.0000000", pricing_currency: "USD", pricing_amount: "100.0000000" });
    });

    it("rates are per environment: the live key has none", async () => {
      const res = await post({ pricing_currency: "USD", pricing_amount: "10" }, priced.liveKey);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "No exchange rate for USD to XLM" });
    });
  });

  describe("settlement wallet", () => {
    it("answers 400 Settlement wallet is not configured for an organization without one, writing nothing", async () => {
      const walletless = await t.createMerchant({ wallet: false });
      const before = await counts();
      for (const key of [walletless.sandboxKey, walletless.liveKey]) {
        const res = await post({ amount: "1" }, key);
        expect(res.status).toBe(400);
        expect(res.raw).toBe('{"error":"Settlement wallet is not configured"}');
      }
      expect(await counts()).toEqual(before);
    });

    it("is per environment", async () => {
      const sandboxOnly = await t.createMerchant({ environments: ["sandbox"] });
      expect((await post({ amount: "1" }, sandboxOnly.sandboxKey)).status).toBe(201);
      const live = await post({ amount: "1" }, sandboxOnly.liveKey);
      expect(live.status).toBe(400);
      expect(live.body).toEqual({ error: "Settlement wallet is not configured" });
    });

    it("captures the wallet and network of the key's environment on the payment", async () => {
      const res = await post({ amount: "1" });
      const row = await t.database.db.payment.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(row.settlementAddress).toBe(merchant.wallet.publicKey());
      expect(row.networkPassphrase).toBe("Test SDF Network ; September 2015");
      const live = await post({ amount: "1" }, merchant.liveKey);
      const liveRow = await t.database.db.payment.findUniqueOrThrow({ where: { id: live.body.id } });
      expect(liveRow.networkPassphrase).toBe("Public Global Stellar Network ; September 2015");
    });
  });

  describe("customer_id", () => {
    it("links a customer of the same organization and environment", async () => {
      const customer = await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { email: "payer@example.com" } });
      const res = await post({ amount: "1", customer_id: customer.body.id });
      expect(res.status).toBe(201);
      expect(res.body.customer_id).toBe(customer.body.id);
    });

    it("accepts customer_id null as no customer", async () => {
      const res = await post({ amount: "1", customer_id: null });
      expect(res.status).toBe(201);
      expect(res.body.customer_id).toBeNull();
    });

    it("refuses a customer of another organization or of the other environment with 400, writing nothing", async () => {
      const other = await t.createMerchant();
      const foreign = await t.api("POST", "/customers", { key: other.sandboxKey, body: { name: "Foreign" } });
      const live = await t.api("POST", "/customers", { key: merchant.liveKey, body: { name: "Live" } });
      const before = await counts();
      for (const id of [foreign.body.id, live.body.id]) {
        const res = await post({ amount: "1", customer_id: id });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: "customer_id does not name a customer" });
      }
      expect(await counts()).toEqual(before);
    });
  });

  describe("outbox", () => {
    it("writes exactly one payment.created event per payment, for the payment's organization and environment", async () => {
      const res = await post({ amount: "7", metadata: { a: "b" } }, merchant.liveKey);
      const events = await t.database.db.event.findMany({ where: { resourceId: res.body.id } });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: "payment.created", organizationId: merchant.organizationId, environment: "production" });
      const data = JSON.parse(events[0]!.data);
      for (const field of SPEC_FIELDS) expect(data, field).toHaveProperty(field);
      expect(data).toMatchObject({ id: res.body.id, amount: "7.0000000", metadata: { a: "b" }, pricing_amount: null });
    });

    it("writes the event in the payment's transaction: when the event cannot be written, no payment exists", async () => {
      const existing = await t.database.db.event.findFirstOrThrow();
      // An id generator that hands out an event id already taken, so the outbox insert fails.
      const ids = { ...timeOrderedIds, newId: (prefix: Parameters<typeof timeOrderedIds.newId>[0]) => (prefix === "evt" ? existing.id : timeOrderedIds.newId(prefix)) };
      const scope = { organizationId: merchant.organizationId, environment: "sandbox" as const, principal: { kind: "key" as const, id: "key_test", role: "admin" as const } };
      const before = await counts();
      await expect(createPayment({ ...t.deps, ids, scope }, { amount: 10_000_000n })).rejects.toThrow();
      expect(await counts()).toEqual(before);
    });
  });
});

describe("memo ids", () => {
  const scope = () => ({ organizationId: merchant.organizationId, environment: "sandbox" as const, principal: { kind: "key" as const, id: "key_test", role: "admin" as const } });
  it("are distinct and grow with time, below 2^63, and every id has 16 random characters after its time", async () => {
    const first = (await post({ amount: "1" })).body.id as string;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await post({ amount: "1" })).body.id as string;
    expect(first < second).toBe(true);
    expect(second).toMatch(/^pay_[0-9A-Za-z]{24}$/);
    const [a, b] = await Promise.all([first, second].map((id) => t.database.db.payment.findUniqueOrThrow({ where: { id } })));
    expect(BigInt(a!.memoId) < BigInt(b!.memoId)).toBe(true);
    expect(BigInt(b!.memoId) < 2n ** 63n).toBe(true);
    const many = Array.from({ length: 2000 }, () => timeOrderedIds.newId("pay"));
    expect(new Set(many.map((id) => id.slice(12))).size).toBe(many.length);
  });

  it("a memo id drawn twice is drawn again: the payment is created once, with a fresh memo id", async () => {
    const { memoId: taken } = await t.database.db.payment.findFirstOrThrow();
    const { ids, drawn } = drawingMemoIds([taken]);
    const before = await counts();
    const payment = await createPayment({ ...t.deps, ids, scope: scope() }, { amount: 10_000_000n });
    expect(drawn).toHaveLength(2);
    expect(payment.memoId).toBe(drawn[1]);
    expect(await t.database.db.payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ memoId: drawn[1] });
    expect(await t.database.db.event.count({ where: { resourceId: payment.id } })).toBe(1);
    expect(await counts()).toEqual({ payments: before.payments + 1, events: before.events + 1 });
  });

  it("gives up after five draws of taken memo ids, writing nothing", async () => {
    const { memoId: taken } = await t.database.db.payment.findFirstOrThrow();
    const { ids, drawn } = drawingMemoIds(Array(5).fill(taken));
    const before = await counts();
    await expect(createPayment({ ...t.deps, ids, scope: scope() }, { amount: 10_000_000n })).rejects.toThrow(/memoId/);
    expect(drawn).toHaveLength(5);
    expect(await counts()).toEqual(before);
  });
});

describe("GET /payments (list)", () => {
  let lister: Merchant;
  const created: string[] = []; // oldest first

  beforeAll(async () => {
    lister = await t.createMerchant();
    const customer = await t.api("POST", "/customers", { key: lister.sandboxKey, body: { name: "Lister" } });
    for (let i = 0; i < 13; i++) {
      const res = await post({ amount: String(i + 1), ...(i % 4 === 0 && { customer_id: customer.body.id }) }, lister.sandboxKey);
      created.push(res.body.id);
      t.clock.advance(1000);
    }
    // Two with the same timestamp still get a stable order (by id).
    const a = await post({ amount: "100" }, lister.sandboxKey);
    const b = await post({ amount: "101" }, lister.sandboxKey);
    created.push(...[a.body.id, b.body.id].sort());
    await t.database.db.payment.updateMany({ where: { id: { in: [a.body.id, b.body.id] } }, data: { createdAt: new Date(t.clock.now()) } });
    await t.database.db.payment.update({ where: { id: created[1]! }, data: { status: "expired" } });
  });

  const list = async (query = "") => {
    const res = await t.api("GET", `/payments${query}`, { key: lister.sandboxKey });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["has_more", "payments"]);
    return res.body as { payments: { id: string; status: string; customer_id: string | null }[]; has_more: boolean };
  };
  const newestFirst = () => [...created].reverse();

  it("lists newest first, 10 by default, with has_more", async () => {
    const page = await list();
    expect(page.payments.map((p) => p.id)).toEqual(newestFirst().slice(0, 10));
    expect(page.has_more).toBe(true);
    expect(page.payments[0]).toHaveProperty("object", "payment_intent");
  });

  it("honours limit 1..100", async () => {
    expect((await list("?limit=1")).payments.map((p) => p.id)).toEqual(newestFirst().slice(0, 1));
    const all = await list("?limit=100");
    expect(all.payments.map((p) => p.id)).toEqual(newestFirst());
    expect(all.has_more).toBe(false);
    const exact = await list(`?limit=${created.length}`);
    expect(exact.has_more).toBe(false);
  });

  it.each([
    ["?limit=0", "limit must be at least 1"],
    ["?limit=101", "limit must be at most 100"],
    ["?limit=2.5", "limit must be an integer"],
    ["?limit=abc", "limit must be a number"],
    ["?status=paid", "status must be one of pending, completed, failed, expired"],
  ])("refuses %s with 400", async (query, message) => {
    const res = await t.api("GET", `/payments${query}`, { key: lister.sandboxKey });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message });
  });

  it("pages forward with starting_after and back with ending_before", async () => {
    const order = newestFirst();
    const first = await list("?limit=4");
    const second = await list(`?limit=4&starting_after=${first.payments.at(-1)!.id}`);
    expect(second.payments.map((p) => p.id)).toEqual(order.slice(4, 8));
    expect(second.has_more).toBe(true);
    const last = await list(`?limit=10&starting_after=${order[8]}`);
    expect(last.payments.map((p) => p.id)).toEqual(order.slice(9));
    expect(last.has_more).toBe(false);
    const back = await list(`?limit=3&ending_before=${order[8]}`);
    expect(back.payments.map((p) => p.id)).toEqual(order.slice(5, 8));
    expect(back.has_more).toBe(true);
    const top = await list(`?limit=10&ending_before=${order[2]}`);
    expect(top.payments.map((p) => p.id)).toEqual(order.slice(0, 2));
    expect(top.has_more).toBe(false);
  });

  it("walks the whole list with starting_after without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor = "";
    for (;;) {
      const page = await list(`?limit=3${cursor && `&starting_after=${cursor}`}`);
      seen.push(...page.payments.map((p) => p.id));
      if (!page.has_more) break;
      cursor = page.payments.at(-1)!.id;
    }
    expect(seen).toEqual(newestFirst());
  });

  it("refuses both cursors at once, and a cursor outside the list", async () => {
    const both = await t.api("GET", `/payments?starting_after=${created[3]}&ending_before=${created[5]}`, { key: lister.sandboxKey });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: "starting_after and ending_before are mutually exclusive" });
    const foreign = await post({ amount: "1" });
    const outside = await t.api("GET", `/payments?starting_after=${foreign.body.id}`, { key: lister.sandboxKey });
    expect(outside.status).toBe(400);
    expect(outside.body).toEqual({ error: "starting_after names no object of this list" });
  });

  it("filters by status and by customer_id", async () => {
    const expired = await list("?status=expired");
    expect(expired.payments.map((p) => p.id)).toEqual([created[1]]);
    const pending = await list("?status=pending&limit=100");
    expect(pending.payments).toHaveLength(created.length - 1);
    expect(pending.payments.every((p) => p.status === "pending")).toBe(true);
    const customerId = (await list("?limit=100")).payments.find((p) => p.customer_id)!.customer_id!;
    const mine = await list(`?customer_id=${customerId}&limit=100`);
    expect(mine.payments.map((p) => p.id)).toEqual([created[12], created[8], created[4], created[0]]);
    expect((await list("?customer_id=cus_nobody0000000000000")).payments).toEqual([]);
  });
});

// Creates go on settings read at most RECENT_SETTINGS_MS ago (organizations.store.ts). A change written
// straight to the table stands for one made by another process or host, which this one hears of only
// by reading again.
describe("the settings a create goes on", () => {
  const walletOf = async (key: string) => {
    const res = await t.api("POST", "/payments", { key, body: { amount: "1" } });
    expect(res.status, res.raw).toBe(201);
    return (res.body as { payment_instructions: { destination: string } }).payment_instructions.destination;
  };
  const setWalletElsewhere = (organizationId: string, address: string) =>
    t.database.db.environmentSettings.update({ where: { organizationId_environment: { organizationId, environment: "sandbox" } }, data: { settlementAddress: address } });

  it("sees this process's own change at once, another's within RECENT_SETTINGS_MS", async () => {
    const { RECENT_SETTINGS_MS } = await import("../src/modules/organizations/organizations.store.ts");
    const { setSettlementWallet } = await import("../src/modules/organizations/organizations.service.ts");
    const owner = await t.createMerchant();
    expect(await walletOf(owner.sandboxKey)).toBe(owner.wallet.publicKey());
    const mine = Keypair.random().publicKey();
    await setSettlementWallet(t.deps, { organizationId: owner.organizationId, environment: "sandbox", address: mine });
    expect(await walletOf(owner.sandboxKey)).toBe(mine);

    const theirs = Keypair.random().publicKey();
    await setWalletElsewhere(owner.organizationId, theirs);
    await new Promise((resolve) => setTimeout(resolve, RECENT_SETTINGS_MS + 50));
    expect(await walletOf(owner.sandboxKey)).toBe(theirs);
  });

  it("refuses only on settings read for it: a wallet or asset set elsewhere a moment ago is taken at once", async () => {
    const owner = await t.createMerchant({ wallet: false });
    const refused = await t.api("POST", "/payments", { key: owner.sandboxKey, body: { amount: "1" } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: "Settlement wallet is not configured" });
    const wallet = Keypair.random().publicKey();
    await t.database.db.environmentSettings.create({
      data: { organizationId: owner.organizationId, environment: "sandbox", settlementAddress: wallet, invoiceSequence: 0, updatedAt: new Date() },
    });
    expect(await walletOf(owner.sandboxKey)).toBe(wallet);

    // an asset enabled elsewhere after the settings were read
    await t.database.db.enabledAsset.create({ data: { organizationId: owner.organizationId, environment: "sandbox", code: "USDC", issuer: USDC_ISSUER, createdAt: new Date() } });
    const usdc = await t.api("POST", "/payments", { key: owner.sandboxKey, body: { amount: "1", settlement_asset: USDC } });
    expect(usdc.status, usdc.raw).toBe(201);
  });

});
