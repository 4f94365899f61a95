// The audit log and re-authentication over real HTTP on both dialects: each sensitive action writes
// its entry (and, for a live key, a wallet or a role, a notice to every owner) in its own
// transaction; a refused action writes neither; only owners and admins read the log.
import { Keypair } from "@stellar/stellar-sdk";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import type { Role } from "../src/modules/users/roles.ts";
import { type DashboardClient, postGraphQL, signedInUser } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let other: Merchant;
const users = {} as Record<Role | "secondOwner", DashboardClient>;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant();
  other = await t.createMerchant();
  for (const role of ["owner", "admin", "developer", "viewer"] as const) users[role] = await signedInUser(t, merchant.organizationId, role);
  users.secondOwner = await signedInUser(t, merchant.organizationId, "owner");
});
afterAll(() => t.close());

const AUDIT_LOG = `query($first: Int, $after: String) { auditLog(first: $first, after: $after) {
  edges { cursor node { action environment resourceId actorKind actorId actorLabel detail createdAt } } pageInfo { hasNextPage endCursor } } }`;
const CREATE_KEY = `mutation($environment: Environment!, $name: String, $password: String) {
  createApiKey(environment: $environment, name: $name, password: $password) { key apiKey { id prefix } } }`;
const SET_WALLET = `mutation($address: String!, $password: String) { setSettlementWallet(address: $address, password: $password) { settlementAddress } }`;

const byKey = (key: string) => (query: string, variables = {}) => postGraphQL(t, { query, variables }, { authorization: `Bearer ${key}` });
const errorOf = (body: any) => ({ code: body.errors?.[0]?.extensions?.code, message: body.errors?.[0]?.message });

/** What the action left behind: the organization's entries and security notices, and its keys. */
async function trail() {
  const db = t.database.db;
  return {
    entries: await db.auditEntry.count({ where: { organizationId: merchant.organizationId } }),
    notices: await db.mailMessage.count({ where: { organizationId: merchant.organizationId, kind: "security_notice" } }),
    keys: await db.apiKey.count({ where: { organizationId: merchant.organizationId } }),
  };
}
const latestEntry = async () => (await users.owner.graphql(AUDIT_LOG, { first: 1 })).body.data.auditLog.edges[0].node;
/** Every owner's notice about the latest change: one each, whose body says what, by whom and when. */
async function noticesSince(since: Date) {
  const mail = await t.database.db.mailMessage.findMany({
    where: { organizationId: merchant.organizationId, kind: "security_notice", createdAt: { gte: since } },
  });
  return mail;
}
const owners = () => [users.owner.email, users.secondOwner.email].sort();

describe("a live key", () => {
  it("asks a session user for the password again: none or a wrong one changes nothing", async () => {
    const before = await trail();
    const none = await users.owner.graphql(CREATE_KEY, { environment: "production" }, { environment: "production" });
    expect(errorOf(none.body)).toEqual({ code: "BAD_REQUEST", message: "Password: give your password again to make this change" });
    const wrong = await users.owner.graphql(CREATE_KEY, { environment: "production", password: "not-it" }, { environment: "production" });
    expect(errorOf(wrong.body)).toEqual({ code: "UNAUTHENTICATED", message: "Password: this is not your current password" });
    expect(await trail()).toEqual(before);
  });

  it("with the password: the key, its entry naming the user, and a notice to every owner", async () => {
    t.clock.advance(1000);
    const since = t.clock.now();
    const answer = await users.owner.graphql(CREATE_KEY, { environment: "production", name: "deploys", password: users.owner.password }, { environment: "production" });
    expect(answer.body.errors).toBeUndefined();
    const { apiKey } = answer.body.data.createApiKey;
    const entry = await latestEntry();
    expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(since.getTime());
    expect(entry).toEqual({
      action: "API_KEY_CREATED",
      environment: "production",
      resourceId: apiKey.id,
      actorKind: "user",
      actorId: users.owner.userId,
      actorLabel: users.owner.email,
      // its name and role
      detail: "deploys, admin",
      createdAt: entry.createdAt,
    });
    const notices = await noticesSince(since);
    expect(notices.map((m) => m.recipient).sort()).toEqual(owners());
    expect(notices[0]!.subject).toBe("Security notice: A live (production) admin API key was created");
    expect(notices[0]!.textBody).toContain(`By: ${users.owner.email}`);
    expect(notices[0]!.textBody).toContain(`When: ${entry.createdAt}`);
  });

  it("an API key creates one as before, without a password; the entry names the key by its prefix", async () => {
    t.clock.advance(1000);
    const answer = await byKey(merchant.liveKey)(CREATE_KEY, { environment: "production" });
    expect(answer.body.errors).toBeUndefined();
    expect(await latestEntry()).toMatchObject({ action: "API_KEY_CREATED", actorKind: "key", actorLabel: merchant.liveKey.slice(0, 16) });
  });

  it("a sandbox key asks for no password and mails nobody, but is logged", async () => {
    t.clock.advance(1000);
    const before = await trail();
    const answer = await users.developer.graphql(CREATE_KEY, { environment: "sandbox" });
    expect(answer.body.errors).toBeUndefined();
    expect(await trail()).toEqual({ ...before, entries: before.entries + 1, keys: before.keys + 1 });
  });
});

it("revoking a key is logged once: revoking it again is CONFLICT and writes no entry", async () => {
  t.clock.advance(1000);
  const { apiKey } = (await users.developer.graphql(CREATE_KEY, { environment: "sandbox" })).body.data.createApiKey;
  const REVOKE = `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`;
  expect((await users.developer.graphql(REVOKE, { id: apiKey.id })).body.errors).toBeUndefined();
  expect(await latestEntry()).toMatchObject({ action: "API_KEY_REVOKED", resourceId: apiKey.id, actorLabel: users.developer.email, detail: apiKey.prefix });
  const before = await trail();
  expect(errorOf((await users.developer.graphql(REVOKE, { id: apiKey.id })).body)).toEqual({ code: "CONFLICT", message: "API key is already revoked" });
  expect(await trail()).toEqual(before);
});

it("rotating a webhook secret is logged, by a user and by a key; the REST rotation too", async () => {
  t.clock.advance(1000);
  const ROTATE = `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret } }`;
  // Never called (nothing it subscribes to happens here); a loopback address, as the test allows.
  const url = "http://127.0.0.1:9/audit";
  const created = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url, enabled_events: ["payment.completed"] } });
  expect(created.status).toBe(201);
  const { id } = created.body;
  const before = await trail();
  expect((await users.developer.graphql(ROTATE, { id })).body.data.rotateWebhookEndpointSecret.secret).toMatch(/^whsec_/);
  expect(await latestEntry()).toMatchObject({ action: "WEBHOOK_SECRET_ROTATED", resourceId: id, actorLabel: users.developer.email, detail: url });
  t.clock.advance(1000);
  const rest = await t.api("POST", `/webhook-endpoints/${id}/rotate-secret`, { key: merchant.sandboxKey });
  expect(rest.status).toBe(200);
  const byRest = await latestEntry();
  expect(byRest).toMatchObject({ action: "WEBHOOK_SECRET_ROTATED", resourceId: id, actorKind: "key" });
  expect(merchant.sandboxKey.startsWith(byRest.actorLabel)).toBe(true);
  expect((await trail()).entries).toBe(before.entries + 2);
});

it("marking a payment completed is logged with its reason; a refused one (not pending) writes no entry", async () => {
  t.clock.advance(1000);
  const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "5" } });
  const MARK = `mutation($id: ID!, $reason: String) { markPaymentCompleted(id: $id, reason: $reason) { status } }`;
  expect((await users.admin.graphql(MARK, { id: payment.body.id, reason: "Paid in cash" })).body.data.markPaymentCompleted.status).toBe("completed");
  expect(await latestEntry()).toMatchObject({ action: "PAYMENT_MARKED_COMPLETED", resourceId: payment.body.id, actorLabel: users.admin.email, detail: "Paid in cash" });
  const before = await trail();
  expect(errorOf((await users.admin.graphql(MARK, { id: payment.body.id, reason: "again" })).body).code).toBe("CONFLICT");
  expect(await trail()).toEqual(before);
});

describe("the settlement wallet", () => {
  it("asks a session user for the password; with it, logs the change and tells every owner", async () => {
    const wallet = Keypair.random().publicKey();
    const before = await trail();
    expect(errorOf((await users.admin.graphql(SET_WALLET, { address: wallet })).body).code).toBe("BAD_REQUEST");
    expect(errorOf((await users.admin.graphql(SET_WALLET, { address: wallet, password: "wrong" })).body).code).toBe("UNAUTHENTICATED");
    expect(await trail()).toEqual(before);
    const settings = () => t.database.db.environmentSettings.findFirst({ where: { organizationId: merchant.organizationId, environment: "sandbox" } });
    expect((await settings())?.settlementAddress).not.toBe(wallet);

    t.clock.advance(1000);
    const since = t.clock.now();
    const answer = await users.admin.graphql(SET_WALLET, { address: wallet, password: users.admin.password });
    expect(answer.body.data.setSettlementWallet.settlementAddress).toBe(wallet);
    expect(await latestEntry()).toMatchObject({
      action: "SETTLEMENT_WALLET_CHANGED",
      resourceId: merchant.organizationId,
      actorLabel: users.admin.email,
      detail: wallet,
    });
    const notices = await noticesSince(since);
    expect(notices.map((m) => m.recipient).sort()).toEqual(owners());
    expect(notices[0]!.subject).toBe(`Security notice: The sandbox settlement wallet was set to ${wallet}`);
  });

  it("an API key may not set it (a session with the password only): nothing changes, nothing is logged", async () => {
    t.clock.advance(1000);
    const before = await latestEntry();
    const wallet = Keypair.random().publicKey();
    const refused = await byKey(merchant.sandboxKey)(SET_WALLET, { address: wallet });
    expect(refused.body.errors[0].extensions.code).toBe("FORBIDDEN");
    expect(await latestEntry()).toEqual(before);
  });
});

describe("the team", () => {
  it("a role change is logged and told to every owner; a removal is logged", async () => {
    const teammate = await signedInUser(t, merchant.organizationId, "viewer");
    t.clock.advance(1000);
    const since = t.clock.now();
    const UPDATE = `mutation($id: ID!, $password: String!) { updateUserRole(id: $id, role: developer, password: $password) { role } }`;
    expect((await users.owner.graphql(UPDATE, { id: teammate.userId, password: users.owner.password })).body.errors).toBeUndefined();
    expect(await latestEntry()).toMatchObject({
      action: "USER_ROLE_CHANGED",
      resourceId: teammate.userId,
      detail: `${teammate.email} is now developer (was viewer)`,
    });
    expect((await noticesSince(since)).map((m) => m.recipient).sort()).toEqual(owners());

    t.clock.advance(1000);
    expect((await users.admin.graphql(`mutation($id: ID!) { removeUser(id: $id) }`, { id: teammate.userId })).body.errors).toBeUndefined();
    expect(await latestEntry()).toMatchObject({ action: "USER_REMOVED", resourceId: teammate.userId, actorLabel: users.admin.email });
  });

  it("a refused role change (a wrong password) writes no entry and no mail", async () => {
    const before = await trail();
    const UPDATE = `mutation($id: ID!) { updateUserRole(id: $id, role: admin, password: "wrong") { role } }`;
    expect(errorOf((await users.owner.graphql(UPDATE, { id: users.viewer.userId })).body).code).toBe("UNAUTHENTICATED");
    expect(await trail()).toEqual(before);
  });
});

it("two-factor sign-in turned on and off is logged; a live key then asks for the code too", async () => {
  const user = await signedInUser(t, merchant.organizationId, "admin");
  const { secret } = (await user.graphql(`mutation { beginTwoFactorSetup { secret } }`)).body.data.beginTwoFactorSetup;
  const code = () => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: t.clock.now().getTime() });
  t.clock.advance(1000);
  expect((await user.graphql(`mutation($code: String!) { confirmTwoFactor(code: $code) }`, { code: code() })).body.errors).toBeUndefined();
  expect(await latestEntry()).toMatchObject({ action: "TWO_FACTOR_ENABLED", resourceId: user.userId, actorLabel: user.email });

  const before = await trail();
  const withoutCode = await user.graphql(CREATE_KEY, { environment: "production", password: user.password }, { environment: "production" });
  expect(errorOf(withoutCode.body)).toEqual({ code: "UNAUTHENTICATED", message: "A code from your authenticator app (or a recovery code) is required" });
  expect(await trail()).toEqual(before);

  // The next step's code: the one that confirmed is used up.
  t.clock.advance(30_000);
  const OFF = `mutation($password: String!, $code: String!) { disableTwoFactor(password: $password, code: $code) }`;
  expect((await user.graphql(OFF, { password: user.password, code: code() })).body.errors).toBeUndefined();
  expect(await latestEntry()).toMatchObject({ action: "TWO_FACTOR_DISABLED", resourceId: user.userId });
});

it("the operator's changes through the admin CLI are logged as the operator's", async () => {
  // What `org create`, `key create`, `key revoke` and `wallet set` run (src/cli/admin-commands.ts).
  const org = await t.createMerchant();
  const entries = () => t.database.db.auditEntry.findMany({ where: { organizationId: org.organizationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const made = await entries();
  // (made in the same instant: in no particular order)
  expect(made.map((e) => [e.action, e.environment, e.actorKind, e.actorId, e.actorLabel]).sort()).toEqual([
    ["api_key.created", "production", "operator", "cli", "operator (admin CLI)"],
    ["api_key.created", "sandbox", "operator", "cli", "operator (admin CLI)"],
    // the test merchant's wallets, set as `wallet set` sets them
    ["settlement_wallet.changed", "production", "operator", "cli", "operator (admin CLI)"],
    ["settlement_wallet.changed", "sandbox", "operator", "cli", "operator (admin CLI)"],
  ]);
  t.clock.advance(1000);
  await revokeApiKey(t.deps, { prefix: org.sandboxKey.slice(0, 16) });
  const revoked = (await entries()).at(-1)!;
  expect(revoked).toMatchObject({ action: "api_key.revoked", actorKind: "operator", detail: org.sandboxKey.slice(0, 16) });
  await expect(revokeApiKey(t.deps, { prefix: org.sandboxKey.slice(0, 16) })).rejects.toThrow("names no active key");
  expect(await entries()).toHaveLength(made.length + 1);
  // and the dashboard shows them as the operator's
  const owner = await signedInUser(t, org.organizationId, "owner");
  expect((await owner.graphql(AUDIT_LOG, { first: 1 })).body.data.auditLog.edges[0].node).toMatchObject({ action: "API_KEY_REVOKED", actorKind: "operator" });
});

describe("reading the log", () => {
  it("only owners and admins: a developer, a viewer and an API key are FORBIDDEN", async () => {
    for (const role of ["developer", "viewer"] as const) {
      expect(errorOf((await users[role].graphql(AUDIT_LOG)).body)).toEqual({ code: "FORBIDDEN", message: `The role ${role} may not use auditLog` });
    }
    expect(errorOf((await byKey(merchant.sandboxKey)(AUDIT_LOG)).body)).toEqual({ code: "FORBIDDEN", message: "An API key may not use auditLog: the team is managed and seen in the dashboard only" });
  });

  it("newest first, page by page, the caller's organization only", async () => {
    await byKey(other.sandboxKey)(CREATE_KEY, { environment: "sandbox" });
    const all = (await users.admin.graphql(AUDIT_LOG, { first: 100 })).body.data.auditLog.edges.map((e: any) => e.node);
    expect(all.length).toBe(await t.database.db.auditEntry.count({ where: { organizationId: merchant.organizationId } }));
    const times = all.map((e: any) => Date.parse(e.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const first = (await users.admin.graphql(AUDIT_LOG, { first: 2 })).body.data.auditLog;
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await users.admin.graphql(AUDIT_LOG, { first: 2, after: first.pageInfo.endCursor })).body.data.auditLog;
    expect([...first.edges, ...second.edges].map((e: any) => e.node)).toEqual(all.slice(0, 4));
  });
});
