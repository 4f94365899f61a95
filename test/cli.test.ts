// The operator CLI's commands against the same DATABASE_URL as the server (here the test app's
// database), checked through the server's HTTP API. Commands run in this process (admin-run.ts, what
// the CLI's process runs); the last test runs the real process on a fresh database. What the process
// answers before it opens a database (help, usage errors, exit codes) is in cli-usage.nodb.test.ts.
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectFailure, expectOk, runAdmin, runAdminProcess } from "./support/admin-cli.ts";
import { type TestApp, freshDatabaseUrl, startTestApp } from "./support/test-app.ts";

let t: TestApp;

// The real process (tsx, Prisma, the Stellar SDK) takes seconds to start on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const admin = (args: string[], databaseUrl = t.config.databaseUrl) => runAdmin(args, databaseUrl);

describe("admin CLI", () => {
  it("runs the whole merchant setup: org, wallet, asset, rate, key create and revoke, each visible over HTTP", async () => {
    const org = await admin(["org", "create", "--name", "Acme Coffee"]);
    expectOk(org);
    expect(Object.keys(org.json).sort()).toEqual(["live_api_key", "organization_id", "sandbox_api_key"]);
    expect(org.json.sandbox_api_key).toMatch(/^pk_test_/);
    expect(org.json.live_api_key).toMatch(/^pk_live_/);
    const orgId: string = org.json.organization_id;
    const sandboxKey: string = org.json.sandbox_api_key;

    // A new organization has no settlement wallet.
    expect(await t.database.db.environmentSettings.count({ where: { organizationId: orgId } })).toBe(0);
    const walletless = await t.api("POST", "/payments", { key: sandboxKey, body: { amount: "1" } });
    expect(walletless.status).toBe(400);
    expect(walletless.body).toEqual({ error: "Settlement wallet is not configured" });

    const wallet = Keypair.random().publicKey();
    const walletSet = await admin(["wallet", "set", "--org", orgId, "--environment", "sandbox", "--address", wallet]);
    expectOk(walletSet);
    expect(walletSet.json).toEqual({ ok: true });
    const paid = await t.api("POST", "/payments", { key: sandboxKey, body: { amount: "1" } });
    expect(paid.status).toBe(201);
    // ...only for the environment it was set for.
    const live = await t.api("POST", "/payments", { key: org.json.live_api_key, body: { amount: "1" } });
    expect(live.body).toEqual({ error: "Settlement wallet is not configured" });

    const issuer = Keypair.random().publicKey();
    const asset = await admin(["asset", "enable", "--org", orgId, "--environment", "sandbox", "--code", "USDC", "--issuer", issuer]);
    expectOk(asset);
    expect(asset.json).toEqual({ ok: true });
    const quick = await t.api("POST", "/payments", { key: sandboxKey, body: { amount: "5", asset: "USDC", description: "Latte" } });
    expect(quick.status).toBe(201);
    expect(quick.body.settlement_asset).toEqual({ asset_code: "USDC", issuer_address: issuer });

    const rate = await admin(["rate", "set", "--org", orgId, "--environment", "sandbox", "--currency", "EUR", "--asset", "USDC", "--price", "0.5"]);
    expectOk(rate);
    expect(rate.json).toEqual({ ok: true });
    const priced = await t.api("POST", "/payments", {
      key: sandboxKey,
      body: { pricing_currency: "EUR", pricing_amount: "3", settlement_asset: { asset_code: "USDC", issuer_address: issuer } },
    });
    expect(priced.status).toBe(201);
    expect(priced.body.amount).toBe("6.0000000");

    const key = await admin(["key", "create", "--org", orgId, "--environment", "sandbox"]);
    expectOk(key);
    expect(Object.keys(key.json)).toEqual(["api_key"]);
    expect(key.json.api_key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    const newKey: string = key.json.api_key;
    expect((await t.api("GET", `/payments/${paid.body.id}`, { key: newKey })).status).toBe(200);

    const revoke = await admin(["key", "revoke", "--key-prefix", newKey.slice(0, 16)]);
    expectOk(revoke);
    expect(revoke.json).toEqual({ ok: true });
    // The CLI is another process: the app sees the revocation within a second (its keys are kept that long).
    const refused = await vi.waitFor(
      async () => {
        const answer = await t.api("GET", `/payments/${paid.body.id}`, { key: newKey });
        expect(answer.status).toBe(401);
        return answer;
      },
      { timeout: 1000, interval: 50 },
    );
    expect(refused.raw).toBe('{"error":"Unauthorized"}');
    // The organization's other key still works.
    expect((await t.api("GET", `/payments/${paid.body.id}`, { key: sandboxKey })).status).toBe(200);

    expectFailure(await admin(["key", "revoke", "--key-prefix", newKey.slice(0, 16)]), "names no active key");
  });

  it("creates a live key that reaches production only", async () => {
    const org = await admin(["org", "create", "--name", "Live Shop"]);
    const key = await admin(["key", "create", "--org", org.json.organization_id, "--environment", "production"]);
    expectOk(key);
    expect(key.json.api_key).toMatch(/^pk_live_/);
    const list = await t.api("GET", "/payments", { key: key.json.api_key });
    expect(list.status).toBe(200);
    const row = await t.database.db.apiKey.findFirstOrThrow({ where: { prefix: key.json.api_key.slice(0, 16) } });
    expect(row.environment).toBe("production");
  });

  describe("errors: a message on stderr, exit 1, nothing written", () => {
    let orgId: string;
    beforeAll(async () => {
      orgId = (await admin(["org", "create", "--name", "Errors"])).json.organization_id;
    });
    const address = Keypair.random().publicKey();

    it("a bad address", async () => {
      const [wallet, issuer] = await Promise.all([
        admin(["wallet", "set", "--org", orgId, "--environment", "sandbox", "--address", "GNOTANADDRESS"]),
        admin(["asset", "enable", "--org", orgId, "--environment", "sandbox", "--code", "USDC", "--issuer", "nope"]),
      ]);
      expectFailure(wallet, "address must be a Stellar public key (G...)");
      expectFailure(issuer, "issuer must be a Stellar public key (G...)");
      expect(await t.database.db.environmentSettings.count({ where: { organizationId: orgId } })).toBe(0);
      expect(await t.database.db.enabledAsset.count({ where: { organizationId: orgId } })).toBe(0);
    });

    it("an unknown organization", async () => {
      const results = await Promise.all([
        admin(["wallet", "set", "--org", "org_unknown", "--environment", "sandbox", "--address", address]),
        admin(["key", "create", "--org", "org_unknown", "--environment", "sandbox"]),
        admin(["asset", "enable", "--org", "org_unknown", "--environment", "sandbox", "--code", "USDC", "--issuer", address]),
      ]);
      for (const result of results) expectFailure(result, "organization not found");
    });

    it("a bad environment", async () => {
      expectFailure(
        await admin(["wallet", "set", "--org", orgId, "--environment", "staging", "--address", address]),
        "--environment must be sandbox or production",
      );
    });

    it("bad asset and rate values", async () => {
      const rate = (currency: string, asset: string, price: string) =>
        admin(["rate", "set", "--org", orgId, "--environment", "sandbox", "--currency", currency, "--asset", asset, "--price", price]);
      const [code, currency, price, notEnabled] = await Promise.all([
        admin(["asset", "enable", "--org", orgId, "--environment", "sandbox", "--code", "TOOLONGASSETCODE", "--issuer", address]),
        rate("usd", "XLM", "1"),
        rate("USD", "XLM", "0"),
        rate("USD", "EURC", "1"),
      ]);
      expectFailure(code, "code must be 1 to 12 alphanumeric characters");
      expectFailure(currency, "currency must be an ISO 4217 code");
      expectFailure(price, "price must be a positive decimal");
      expectFailure(notEnabled, "asset EURC is not enabled for this organization");
      expect(await t.database.db.exchangeRate.count({ where: { organizationId: orgId } })).toBe(0);
    });
  });

  describe("lists", () => {
    it("org list: every organization with id, name and creation time", async () => {
      const created = await admin(["org", "create", "--name", "Listed Bakery"]);
      const list = await admin(["org", "list"]);
      expectOk(list);
      expect(Object.keys(list.json)).toEqual(["organizations"]);
      const row = list.json.organizations.find((o: { id: string }) => o.id === created.json.organization_id);
      const stored = await t.database.db.organization.findUniqueOrThrow({ where: { id: created.json.organization_id } });
      expect(row).toEqual({ id: stored.id, name: "Listed Bakery", created_at: stored.createdAt.toISOString() });
      expect(list.json.organizations.length).toBe(await t.database.db.organization.count());
    });

    it("key list: each key by id, environment, display prefix, role, created and revoked, never the key or its hash", async () => {
      const org = await admin(["org", "create", "--name", "Key Lister"]);
      const orgId: string = org.json.organization_id;
      const extra: string = (await admin(["key", "create", "--org", orgId, "--environment", "sandbox"])).json.api_key;
      expectOk(await admin(["key", "revoke", "--key-prefix", extra.slice(0, 16)]));
      const list = await admin(["key", "list", "--org", orgId]);
      expectOk(list);

      const stored = await t.database.db.apiKey.findMany({ where: { organizationId: orgId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
      expect(stored).toHaveLength(3);
      expect(list.json).toEqual({
        api_keys: stored.map((key) => ({
          id: key.id,
          environment: key.environment,
          prefix: key.prefix,
          role: key.role,
          created_at: key.createdAt.toISOString(),
          revoked_at: key.revokedAt?.toISOString() ?? null,
        })),
      });
      const byPrefix = (key: string) => list.json.api_keys.find((k: { prefix: string }) => k.prefix === key.slice(0, 16));
      expect(byPrefix(org.json.sandbox_api_key)).toMatchObject({ environment: "sandbox", revoked_at: null });
      expect(byPrefix(org.json.live_api_key)).toMatchObject({ environment: "production", revoked_at: null });
      expect(byPrefix(extra).revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      // The operator's keys are admin keys, made by no dashboard user.
      expect(stored.map((key) => [key.role, key.createdById])).toEqual(stored.map(() => ["admin", null]));
      // No secret: not a key, not a hash, not even the part of a key after its prefix.
      for (const key of [org.json.sandbox_api_key, org.json.live_api_key, extra]) expect(list.stdout).not.toContain(key.slice(16));
      for (const { hash } of stored) expect(list.stdout).not.toContain(hash);

      expectFailure(await admin(["key", "list", "--org", "org_unknown"]), "organization not found");
    });

    it("wallet list: the settlement wallet and enabled assets of each environment", async () => {
      const orgId: string = (await admin(["org", "create", "--name", "Wallet Lister"])).json.organization_id;
      const empty = await admin(["wallet", "list", "--org", orgId]);
      expectOk(empty);
      expect(empty.json).toEqual({
        wallets: [
          { environment: "sandbox", settlement_address: null, enabled_assets: [{ code: "XLM", issuer: null }] },
          { environment: "production", settlement_address: null, enabled_assets: [{ code: "XLM", issuer: null }] },
        ],
      });

      const wallet = Keypair.random().publicKey();
      const issuer = Keypair.random().publicKey();
      expectOk(await admin(["wallet", "set", "--org", orgId, "--environment", "production", "--address", wallet]));
      expectOk(await admin(["asset", "enable", "--org", orgId, "--environment", "production", "--code", "USDC", "--issuer", issuer]));
      const list = await admin(["wallet", "list", "--org", orgId]);
      expectOk(list);
      expect(list.json).toEqual({
        wallets: [
          { environment: "sandbox", settlement_address: null, enabled_assets: [{ code: "XLM", issuer: null }] },
          {
            environment: "production",
            settlement_address: wallet,
            enabled_assets: [{ code: "XLM", issuer: null }, { code: "USDC", issuer }],
          },
        ],
      });

      expectFailure(await admin(["wallet", "list", "--org", "org_unknown"]), "organization not found");
    });
  });

  it("migrates a fresh database itself, so it works before the server ever started (the real process)", async () => {
    const fresh = await freshDatabaseUrl();
    try {
      const org = await runAdminProcess(["org", "create", "--name", "First"], fresh.url);
      expectOk(org);
      expect(org.json.organization_id).toMatch(/^org_/);
    } finally {
      await fresh.drop();
    }
  });
});
