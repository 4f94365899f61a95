// GraphQL for what only the operator CLI could do: API keys, the organization's settings per
// environment (with the settlement wallet's health asked of the simulated ledger), and the
// dashboard's totals. A key acts in its own environment only.
import { Keypair, Networks } from "@stellar/stellar-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { settlementWalletHealth } from "../src/modules/organizations/organizations.service.ts";
import { type DashboardClient, signedInUser } from "./support/dashboard.ts";
import { type Merchant, startTestApp } from "./support/test-app.ts";

const t = await startTestApp({ workers: true, env: { LEDGER: "simulated", SIM_LEDGER_CLOSE_MS: "100" } });
afterAll(() => t.close());
const merchant = await t.createMerchant();
const network = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;

const gql = async (query: string, variables?: Record<string, unknown>, key = merchant.sandboxKey) => (await t.graphql(query, variables, key)).body;
const refusal = (body: any) => ({ code: body.errors?.[0]?.extensions?.code, message: body.errors?.[0]?.message });

/**
 * Where money goes is changed by a session only, with the password again: `query` declares
 * `$password: String` and passes it on; the owner's password is given.
 */
async function ownerOf(own: Merchant) {
  const owner: DashboardClient = await signedInUser(t, own.organizationId, "owner");
  const answer = (query: string, variables: Record<string, unknown> = {}) => owner.graphql(query, { ...variables, password: owner.password });
  return Object.assign(async (query: string, variables: Record<string, unknown> = {}) => (await answer(query, variables)).body, { answer });
}

const KEY_FIELDS = "id name environment prefix role creatorRemoved createdAt lastUsedAt revokedAt";
const CREATE_KEY = `mutation ($environment: Environment!, $name: String) { createApiKey(environment: $environment, name: $name) { key apiKey { ${KEY_FIELDS} } } }`;
const REVOKE_KEY = `mutation ($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`;
const LIST_KEYS = `{ apiKeys { ${KEY_FIELDS} } }`;

describe("API keys", () => {
  it("creates a key of the caller's environment, shown in full once, that works at once", async () => {
    const created = await gql(CREATE_KEY, { environment: "sandbox", name: "  CI deploys " });
    expect(created.errors).toBeUndefined();
    const { key, apiKey } = created.data.createApiKey;
    expect(key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    // Made with the operator's (admin) key: an admin key, whose creator is no user.
    expect(apiKey).toMatchObject({ name: "CI deploys", environment: "sandbox", prefix: key.slice(0, 16), role: "admin", creatorRemoved: false, lastUsedAt: null, revokedAt: null });
    expect((await t.api("GET", "/payments", { key })).status).toBe(200);
    // Only its hash is stored.
    const stored = await t.database.db.apiKey.findUnique({ where: { id: apiKey.id } });
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  it("lists the caller's environment's keys only, oldest first, with when each was last used, never the key", async () => {
    const listed = (await gql(LIST_KEYS)).data.apiKeys;
    expect(listed.length).toBeGreaterThanOrEqual(2);
    expect(listed.every((k: any) => k.environment === "sandbox")).toBe(true);
    const own = listed.find((k: any) => merchant.sandboxKey.startsWith(k.prefix));
    expect(own).toMatchObject({ name: null, revokedAt: null });
    expect(Date.parse(own.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    const live = (await gql(LIST_KEYS, {}, merchant.liveKey)).data.apiKeys;
    expect(live.map((k: any) => k.environment)).toEqual(["production"]);
    expect(JSON.stringify(listed)).not.toContain(merchant.sandboxKey);
    const noSuchField = await gql(`{ apiKeys { hash } }`);
    expect(noSuchField.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  it("writes last use to the minute: at first use, not again within a minute, again after", async () => {
    const { key, apiKey } = (await gql(CREATE_KEY, { environment: "sandbox" })).data.createApiKey;
    const lastUsed = async () => (await t.database.db.apiKey.findUnique({ where: { id: apiKey.id } }))!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await t.api("GET", "/payments", { key });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    t.clock.advance(30_000);
    await t.api("GET", "/payments", { key });
    expect(await lastUsed()).toEqual(first);
    t.clock.advance(31_000);
    await gql(`{ apiKeys { id } }`, {}, key);
    expect((await lastUsed())!.getTime() - first!.getTime()).toBeGreaterThanOrEqual(61_000);
  });

  it("refuses a production key to a sandbox caller (and the reverse), creating nothing", async () => {
    const count = () => t.database.db.apiKey.count({ where: { organizationId: merchant.organizationId } });
    const before = await count();
    expect(refusal(await gql(CREATE_KEY, { environment: "production" }))).toEqual({
      code: "BAD_REQUEST",
      message: "environment: a sandbox caller creates sandbox keys only",
    });
    expect(refusal(await gql(CREATE_KEY, { environment: "sandbox" }, merchant.liveKey))).toEqual({
      code: "BAD_REQUEST",
      message: "environment: a production caller creates production keys only",
    });
    expect(refusal(await gql(CREATE_KEY, { environment: "sandbox", name: "x".repeat(101) }))).toEqual({
      code: "BAD_REQUEST",
      message: "Name: must be at most 100 characters",
    });
    expect(await count()).toBe(before);
    const live = (await gql(CREATE_KEY, { environment: "production", name: "live" }, merchant.liveKey)).data.createApiKey;
    expect(live.key).toMatch(/^pk_live_/);
  });

  it("revokes a key of the caller's environment: refused from then on; again is a conflict; another environment's is not found", async () => {
    const { key, apiKey } = (await gql(CREATE_KEY, { environment: "sandbox" })).data.createApiKey;
    const revoked = await gql(REVOKE_KEY, { id: apiKey.id });
    expect(revoked.errors).toBeUndefined();
    expect(Date.parse(revoked.data.revokeApiKey.revokedAt)).not.toBeNaN();
    expect((await t.api("GET", "/payments", { key })).status).toBe(401);
    expect(refusal(await gql(REVOKE_KEY, { id: apiKey.id }))).toEqual({ code: "CONFLICT", message: "API key is already revoked" });
    const liveKeyId = (await gql(LIST_KEYS, {}, merchant.liveKey)).data.apiKeys[0].id;
    expect(refusal(await gql(REVOKE_KEY, { id: liveKeyId }))).toEqual({ code: "NOT_FOUND", message: "Not found" });
    expect((await t.api("GET", "/payments", { key: merchant.liveKey })).status).toBe(200);
    const other = await t.createMerchant();
    const otherKeyId = (await gql(LIST_KEYS, {}, other.sandboxKey)).data.apiKeys[0].id;
    expect(refusal(await gql(REVOKE_KEY, { id: otherKeyId }))).toEqual({ code: "NOT_FOUND", message: "Not found" });
  });
});

const ORG = `id name environment displayName checkoutName settlementAddress enabledAssets { assetCode issuerAddress } rates { currency asset { assetCode issuerAddress } price }`;
const HEALTH = `settlementWalletHealth { address accountExists missingTrustlines { assetCode issuerAddress } healthy error }`;

describe("organization settings", () => {
  it("reads the organization with its environment's settings", async () => {
    const { data } = await gql(`{ organization { ${ORG} } }`);
    expect(data.organization).toEqual({
      id: merchant.organizationId,
      name: "Test Merchant",
      environment: "sandbox",
      displayName: null,
      checkoutName: "Test Merchant",
      settlementAddress: merchant.wallet.publicKey(),
      enabledAssets: [{ assetCode: "XLM", issuerAddress: null }],
      rates: [],
    });
  });

  it("renames the organization everywhere and sets a display name per environment", async () => {
    const own = await t.createMerchant();
    const update = (input: Record<string, unknown>, key = own.sandboxKey) =>
      gql(`mutation ($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { name displayName checkoutName } }`, { input }, key);
    expect((await update({ name: "Acme Inc." })).data.updateOrganization).toEqual({ name: "Acme Inc.", displayName: null, checkoutName: "Acme Inc." });
    expect((await update({ displayName: "Acme Sandbox Shop" })).data.updateOrganization).toEqual({
      name: "Acme Inc.",
      displayName: "Acme Sandbox Shop",
      checkoutName: "Acme Sandbox Shop",
    });
    // The live environment keeps the organization's name.
    expect((await gql(`{ organization { name displayName checkoutName } }`, {}, own.liveKey)).data.organization).toEqual({
      name: "Acme Inc.",
      displayName: null,
      checkoutName: "Acme Inc.",
    });
    // Payers see it on the checkout.
    const payment = await t.api("POST", "/payments", { key: own.sandboxKey, body: { amount: "1" } });
    const checkout = (await t.graphql(`query ($id: ID!) { checkout(id: $id) { merchantName } }`, { id: payment.body.id })).body;
    expect(checkout.data.checkout.merchantName).toBe("Acme Sandbox Shop");
    expect((await update({ displayName: null })).data.updateOrganization.checkoutName).toBe("Acme Inc.");
    expect(refusal(await update({ name: "  " }))).toEqual({ code: "BAD_REQUEST", message: "Name: required" });
    expect(refusal(await update({ displayName: "two\nlines" }))).toEqual({ code: "BAD_REQUEST", message: "Display name: must be one line of text" });
    expect((await gql(`{ organization { name } }`, {}, own.sandboxKey)).data.organization.name).toBe("Acme Inc.");
  });

  it("sets the settlement wallet and checks it against the ledger: exists, trusts every enabled credit asset", async () => {
    const own = await t.createMerchant({ wallet: false });
    const asOwner = await ownerOf(own);
    const org = async (key = own.sandboxKey) => (await gql(`{ organization { settlementAddress ${HEALTH} } }`, {}, key)).data.organization;
    expect(await org()).toEqual({ settlementAddress: null, settlementWalletHealth: null });

    const SET = `mutation ($address: String!, $password: String) { setSettlementWallet(address: $address, password: $password) { settlementAddress ${HEALTH} } }`;
    expect(refusal(await asOwner(SET, { address: "GNOTAKEY" }))).toEqual({
      code: "BAD_REQUEST",
      message: "Address: a Stellar account address: 56 characters starting with G",
    });
    const wallet = Keypair.random().publicKey();
    const set = (await asOwner(SET, { address: wallet })).data.setSettlementWallet;
    expect(set).toEqual({
      settlementAddress: wallet,
      settlementWalletHealth: { address: wallet, accountExists: false, missingTrustlines: [], healthy: false, error: null },
    });
    expect((await org(own.liveKey)).settlementAddress).toBeNull();

    await network.fund(wallet);
    expect((await org()).settlementWalletHealth).toMatchObject({ accountExists: true, healthy: true, missingTrustlines: [] });

    const usdc = network.createAsset("USDC", Keypair.random());
    const enabled = await asOwner(
      `mutation ($code: String!, $issuer: String!, $password: String) { enableAsset(assetCode: $code, issuerAddress: $issuer, password: $password) { enabledAssets { assetCode issuerAddress } ${HEALTH} } }`,
      { code: "USDC", issuer: usdc.getIssuer() },
    );
    expect(enabled.data.enableAsset.enabledAssets).toEqual([
      { assetCode: "XLM", issuerAddress: null },
      { assetCode: "USDC", issuerAddress: usdc.getIssuer() },
    ]);
    expect(enabled.data.enableAsset.settlementWalletHealth).toMatchObject({
      accountExists: true,
      healthy: false,
      missingTrustlines: [{ assetCode: "USDC", issuerAddress: usdc.getIssuer() }],
    });
    network.setTrustline(wallet, usdc);
    expect((await org()).settlementWalletHealth).toMatchObject({ healthy: true, missingTrustlines: [] });
  });

  it("says so when the ledger cannot be asked, rather than failing the query", async () => {
    const address = Keypair.random().publicKey();
    const unreachable = { loadAccount: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")) };
    expect(await settlementWalletHealth(unreachable, { settlementAddress: address, enabledAssets: [] })).toEqual({
      address,
      accountExists: null,
      missingTrustlines: [],
      healthy: false,
      error: "The ledger could not be reached: connect ECONNREFUSED 127.0.0.1:1",
      balances: [],
    });
  });

  it("funds the sandbox wallet with friendbot's test lumens once, and shows its balances; never in live", async () => {
    const own = await t.createMerchant();
    const asOwner = await ownerOf(own);
    const FUND = `mutation { fundSettlementWalletWithTestLumens }`;
    const BALANCES = `{ organization { settlementWalletHealth { accountExists balances { balance asset { assetCode } } } } }`;
    expect((await gql(BALANCES, {}, own.sandboxKey)).data.organization.settlementWalletHealth).toEqual({ accountExists: false, balances: [] });
    expect((await asOwner(FUND)).data).toEqual({ fundSettlementWalletWithTestLumens: true });
    expect((await gql(BALANCES, {}, own.sandboxKey)).data.organization.settlementWalletHealth).toEqual({
      accountExists: true,
      balances: [{ balance: "10000.0000000", asset: { assetCode: "XLM" } }],
    });
    expect(refusal(await asOwner(FUND))).toEqual({
      code: "CONFLICT",
      message: "The settlement wallet already exists on the test network; test XLM can fund a new account only",
    });
    const live = await signedInUser(t, own.organizationId, "owner");
    expect(refusal((await live.graphql(FUND, {}, { environment: "production" })).body)).toEqual({
      code: "BAD_REQUEST",
      message: "Test lumens exist on the test network only: switch to the sandbox",
    });
    const walletless = await ownerOf(await t.createMerchant({ wallet: false }));
    expect(refusal(await walletless(FUND))).toEqual({ code: "BAD_REQUEST", message: "Set a settlement wallet first, then fund it" });
  });

  it("disables a credit asset with its rates: new payments refuse it, earlier ones keep it", async () => {
    const own = await t.createMerchant();
    const asOwner = await ownerOf(own);
    const issuer = Keypair.random().publicKey();
    const usdc = { asset_code: "EURC", issuer_address: issuer };
    const ASSET_ARGS = `($c: String!, $i: String!)`;
    const enable = await asOwner(`mutation ($c: String!, $i: String!, $password: String) { enableAsset(assetCode: $c, issuerAddress: $i, password: $password) { id } }`, {
      c: "EURC",
      i: issuer,
    });
    expect(enable.errors).toBeUndefined();
    const RATE = `mutation ($asset: String!, $price: String!, $password: String) { setExchangeRate(currency: "EUR", assetCode: $asset, price: $price, password: $password) { id } }`;
    expect((await asOwner(RATE, { asset: "EURC", price: "1" })).errors).toBeUndefined();
    expect((await asOwner(RATE, { asset: "XLM", price: "0.2" })).errors).toBeUndefined();
    const before = await t.api("POST", "/payments", { key: own.sandboxKey, body: { amount: "5", allowed_assets: [usdc] } });
    expect(before.status).toBe(201);

    const DISABLE = `mutation ${ASSET_ARGS} { disableAsset(assetCode: $c, issuerAddress: $i) { enabledAssets { assetCode } rates { currency asset { assetCode } price } } }`;
    const disabled = await gql(DISABLE, { c: "EURC", i: issuer }, own.sandboxKey);
    expect(disabled.data.disableAsset).toEqual({
      enabledAssets: [{ assetCode: "XLM" }],
      rates: [{ currency: "EUR", asset: { assetCode: "XLM" }, price: "0.2" }],
    });
    expect((await t.api("POST", "/payments", { key: own.sandboxKey, body: { amount: "5", allowed_assets: [usdc] } })).status).toBe(400);
    const kept = await t.api("GET", `/payments/${before.body.id}`, { key: own.sandboxKey });
    expect(kept.body.allowed_assets).toEqual([usdc]);

    expect(refusal(await gql(DISABLE, { c: "EURC", i: issuer }, own.sandboxKey))).toEqual({
      code: "BAD_REQUEST",
      message: `asset EURC of issuer ${issuer} is not enabled`,
    });
    expect(refusal(await gql(DISABLE, { c: "XLM", i: issuer }, own.sandboxKey)).code).toBe("BAD_REQUEST");
  });

  it("sets pricing rates for enabled assets", async () => {
    const asOwner = await ownerOf(merchant);
    const SET_RATE = `mutation ($currency: String!, $asset: String!, $price: String!, $password: String) {
      setExchangeRate(currency: $currency, assetCode: $asset, price: $price, password: $password) { rates { currency asset { assetCode } price } } }`;
    const set = await asOwner(SET_RATE, { currency: "USD", asset: "XLM", price: "0.25" });
    expect(set.data.setExchangeRate.rates).toEqual([{ currency: "USD", asset: { assetCode: "XLM" }, price: "0.25" }]);
    expect((await asOwner(SET_RATE, { currency: "USD", asset: "XLM", price: "0.3" })).data.setExchangeRate.rates).toEqual([
      { currency: "USD", asset: { assetCode: "XLM" }, price: "0.3" },
    ]);
    expect(refusal(await asOwner(SET_RATE, { currency: "USD", asset: "EURC", price: "1" }))).toEqual({
      code: "BAD_REQUEST",
      message: "Asset code: EURC is not one of your enabled assets; enable it first",
    });
    expect(refusal(await asOwner(SET_RATE, { currency: "usd", asset: "XLM", price: "1" })).code).toBe("BAD_REQUEST");
    expect(refusal(await asOwner(SET_RATE, { currency: "USD", asset: "XLM", price: "-1" })).code).toBe("BAD_REQUEST");
    // The rate prices payments: 10 USD at 0.3 USD per XLM.
    const priced = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { pricing_currency: "USD", pricing_amount: "10" } });
    expect(priced.body.amount).toBe("33.3333334");
    expect((await gql(`{ organization { rates { price } } }`, {}, merchant.liveKey)).data.organization.rates).toEqual([]);
  });
});

describe("dashboardTotals", () => {
  const TOTALS = `query ($from: DateTime!, $to: DateTime!) { dashboardTotals(from: $from, to: $to) {
    volume { asset { assetCode issuerAddress } amount } countsByStatus { status count } } }`;

  it("counts the range's payments per status and adds up the completed ones per asset", async () => {
    const own = await t.createMerchant();
    const from = t.clock.now();
    const create = async (amount: string) => (await t.api("POST", "/payments", { key: own.sandboxKey, body: { amount } })).body.id as string;
    const completed = [await create("10.5"), await create("0.0000001")];
    await create("99");
    for (const id of completed) expect((await t.api("POST", `/payments/${id}/complete`, { key: own.sandboxKey })).status).toBe(200);
    await t.api("POST", "/payments", { key: own.liveKey, body: { amount: "1000" } });
    const to = new Date(t.clock.now().getTime() + 1);

    const totals = (await gql(TOTALS, { from: from.toISOString(), to: to.toISOString() }, own.sandboxKey)).data.dashboardTotals;
    expect(totals).toEqual({
      volume: [{ asset: { assetCode: "XLM", issuerAddress: null }, amount: "10.5000001" }],
      countsByStatus: [
        { status: "pending", count: 1 },
        { status: "completed", count: 2 },
        { status: "failed", count: 0 },
        { status: "expired", count: 0 },
      ],
    });
    const live = (await gql(TOTALS, { from: from.toISOString(), to: to.toISOString() }, own.liveKey)).data.dashboardTotals;
    expect(live.countsByStatus[0]).toEqual({ status: "pending", count: 1 });
    expect(live.volume).toEqual([]);

    const before = (await gql(TOTALS, { from: new Date(from.getTime() - 60_000).toISOString(), to: from.toISOString() }, own.sandboxKey)).data;
    expect(before.dashboardTotals.volume).toEqual([]);
    expect(before.dashboardTotals.countsByStatus.every((c: any) => c.count === 0)).toBe(true);
  });

  it("gives the completed volume per UTC day and asset, oldest first, days without any left out", async () => {
    const own = await t.createMerchant();
    const from = t.clock.now();
    const pay = async (amount: string) => {
      const id = (await t.api("POST", "/payments", { key: own.sandboxKey, body: { amount } })).body.id as string;
      expect((await t.api("POST", `/payments/${id}/complete`, { key: own.sandboxKey })).status).toBe(200);
    };
    await pay("1.5");
    await pay("2");
    t.clock.advance(2 * 86_400_000); // two days on: the day between has nothing
    await pay("0.0000001");
    const to = new Date(t.clock.now().getTime() + 1);
    const query = `query ($from: DateTime!, $to: DateTime!) { dashboardTotals(from: $from, to: $to) { daily { day amount asset { assetCode } } } }`;
    const { daily } = (await gql(query, { from: from.toISOString(), to: to.toISOString() }, own.sandboxKey)).data.dashboardTotals;
    const day = (date: Date) => date.toISOString().slice(0, 10);
    expect(daily).toEqual([
      { day: day(from), amount: "3.5000000", asset: { assetCode: "XLM" } },
      { day: day(t.clock.now()), amount: "0.0000001", asset: { assetCode: "XLM" } },
    ]);
  });

  it("gives the completed volume in each currency with a rate, at today's rates, exactly; an asset without one is named, not counted", async () => {
    const own = await t.createMerchant();
    const asOwner = await ownerOf(own);
    const usdc = network.createAsset("USDC", Keypair.random());
    await asOwner(`mutation ($c: String!, $i: String!, $password: String) { enableAsset(assetCode: $c, issuerAddress: $i, password: $password) { id } }`, {
      c: "USDC",
      i: usdc.getIssuer(),
    });
    const SET_RATE = `mutation ($currency: String!, $asset: String!, $price: String!, $password: String) { setExchangeRate(currency: $currency, assetCode: $asset, price: $price, password: $password) { id } }`;
    expect((await asOwner(SET_RATE, { currency: "USD", asset: "XLM", price: "0.1234567" })).errors).toBeUndefined();
    expect((await asOwner(SET_RATE, { currency: "EUR", asset: "XLM", price: "0.3" })).errors).toBeUndefined();
    const from = t.clock.now();
    for (const body of [{ amount: "10.0000001" }, { amount: "3", asset: "USDC" }, { amount: "0.0000003" }]) {
      const id = (await t.api("POST", "/payments", { key: own.sandboxKey, body })).body.id as string;
      expect((await t.api("POST", `/payments/${id}/complete`, { key: own.sandboxKey })).status).toBe(200);
    }
    const to = new Date(t.clock.now().getTime() + 1);
    const query = `query ($from: DateTime!, $to: DateTime!) { dashboardTotals(from: $from, to: $to) {
      inCurrencies { currency amount perAsset { amount asset { assetCode } } assetsWithoutRate { assetCode } } } }`;
    const { inCurrencies } = (await gql(query, { from: from.toISOString(), to: to.toISOString() }, own.sandboxKey)).data.dashboardTotals;
    // 10.0000004 XLM at 0.1234567 USD = 1.234567049382668 USD, to the ten-millionth 1.2345670; USDC is 1:1 with USD.
    // At 0.3 EUR: 3.00000012 EUR, 3.0000001; USDC has no EUR rate: named, not counted as zero.
    expect(inCurrencies).toEqual([
      { currency: "EUR", amount: "3.0000001", perAsset: [{ amount: "3.0000001", asset: { assetCode: "XLM" } }], assetsWithoutRate: [{ assetCode: "USDC" }] },
      {
        currency: "USD",
        amount: "4.2345670",
        perAsset: expect.arrayContaining([
          { amount: "1.2345670", asset: { assetCode: "XLM" } },
          { amount: "3.0000000", asset: { assetCode: "USDC" } },
        ]),
        assetsWithoutRate: [],
      },
    ]);
    // No rates: no currency, rather than a made-up one.
    const plain = await t.createMerchant();
    expect((await gql(query, { from: from.toISOString(), to: to.toISOString() }, plain.sandboxKey)).data.dashboardTotals.inCurrencies).toEqual([]);
  });

  it("refuses a range that ends before it starts", async () => {
    const now = new Date().toISOString();
    expect(refusal(await gql(TOTALS, { from: now, to: now }))).toEqual({ code: "BAD_REQUEST", message: "To: must be later than the start (from)" });
  });
});

it("answers bad input with a client error naming it, never INTERNAL, and changes nothing", async () => {
  const own = await t.createMerchant();
  const asOwner = await ownerOf(own);
  const snapshot = async () =>
    JSON.stringify([
      await t.database.db.apiKey.findMany({ where: { organizationId: own.organizationId }, select: { id: true, revokedAt: true }, orderBy: { id: "asc" } }),
      await t.database.db.organization.findUnique({
        where: { id: own.organizationId },
        include: { settings: { orderBy: { environment: "asc" } }, assets: true, rates: true },
      }),
    ]);
  const before = await snapshot();
  const long = "x".repeat(100_000);
  const cases: [string, Record<string, unknown>][] = [
    [CREATE_KEY, { environment: "staging" }],
    [CREATE_KEY, { environment: "sandbox", name: "a\u0000b" }],
    [CREATE_KEY, { environment: "sandbox", name: long }],
    [REVOKE_KEY, { id: long }],
    [REVOKE_KEY, { id: "key_\u0000" }],
    [`mutation ($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }`, { input: { name: long } }],
    [`mutation ($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }`, { input: { displayName: "\u0007bell" } }],
    [`mutation ($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }`, { input: { name: 42 } }],
    [`mutation ($a: String!, $password: String) { setSettlementWallet(address: $a, password: $password) { id } }`, { a: long }],
    [`mutation ($a: String!, $password: String) { setSettlementWallet(address: $a, password: $password) { id } }`, { a: Keypair.random().secret() }],
    [`mutation ($c: String!, $i: String!, $password: String) { enableAsset(assetCode: $c, issuerAddress: $i, password: $password) { id } }`, { c: "XLM", i: Keypair.random().publicKey() }],
    [`mutation ($c: String!, $i: String!, $password: String) { enableAsset(assetCode: $c, issuerAddress: $i, password: $password) { id } }`, { c: "TOOLONGASSETCODE", i: Keypair.random().publicKey() }],
    [`mutation ($c: String!, $i: String!, $password: String) { enableAsset(assetCode: $c, issuerAddress: $i, password: $password) { id } }`, { c: "USDC", i: "G" }],
    [`mutation ($p: String!, $password: String) { setExchangeRate(currency: "USD", assetCode: "XLM", price: $p, password: $password) { id } }`, { p: "1e5" }],
    [`mutation ($p: String!, $password: String) { setExchangeRate(currency: "USD", assetCode: "XLM", price: $p, password: $password) { id } }`, { p: "0.00000001" }],
    [`mutation ($p: String!, $password: String) { setExchangeRate(currency: "USD", assetCode: "XLM", price: $p, password: $password) { id } }`, { p: "0" }],
    [`mutation ($p: String!, $password: String) { setExchangeRate(currency: "USD", assetCode: "XLM", price: $p, password: $password) { id } }`, { p: long }],
    [`query ($f: DateTime!) { dashboardTotals(from: $f, to: "2026-01-01T00:00:00Z") { volume { amount } } }`, { f: "yesterday" }],
    [`query ($f: DateTime!) { dashboardTotals(from: $f, to: "2026-01-01T00:00:00Z") { volume { amount } } }`, { f: 1 }],
    [`{ dashboardTotals(from: "yesterday", to: "2026-01-01T00:00:00Z") { volume { amount } } }`, {}],
    [`query ($id: String) { mailMessages(first: 1, resourceId: $id) { edges { node { id } } } }`, { id: "inv_\u0000" }],
  ];
  for (const [query, variables] of cases) {
    // Where money goes is a session's to change (with the password again), never a key's.
    const { status, body } = query.includes("$password") ? await asOwner.answer(query, variables) : await t.graphql(query, variables, own.sandboxKey);
    // A variable of the wrong type is GraphQL's own request error: 400, no code.
    const code = body.errors?.[0]?.extensions?.code ?? `HTTP ${status}`;
    expect({ query, variables: JSON.stringify(variables).slice(0, 80), code }).toEqual({
      query,
      variables: JSON.stringify(variables).slice(0, 80),
      code: expect.stringMatching(/^(BAD_REQUEST|BAD_USER_INPUT|NOT_FOUND|GRAPHQL_VALIDATION_FAILED|HTTP 400)$/),
    });
    expect(body.errors[0].message.length).toBeLessThanOrEqual(500);
  }
  expect(await snapshot()).toBe(before);
});

it("answers every new field and mutation only to a caller with a key", async () => {
  for (const query of [
    LIST_KEYS,
    `{ organization { id } }`,
    `{ mailMessages(first: 1) { edges { node { id } } } }`,
    `{ dashboardTotals(from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z") { volume { amount } } }`,
    `mutation { createApiKey(environment: sandbox) { key } }`,
    `mutation { revokeApiKey(id: "key_x") { id } }`,
    `mutation { updateOrganization(input: { name: "x" }) { id } }`,
    `mutation { setSettlementWallet(address: "G") { id } }`,
    `mutation { enableAsset(assetCode: "USDC", issuerAddress: "G") { id } }`,
    `mutation { setExchangeRate(currency: "USD", assetCode: "XLM", price: "1") { id } }`,
    `mutation { disableAsset(assetCode: "USDC", issuerAddress: "G") { id } }`,
  ]) {
    const answer = (await t.graphql(query)).body;
    expect({ query, code: answer.errors?.[0]?.extensions?.code }).toEqual({ query, code: "UNAUTHENTICATED" });
  }
});
