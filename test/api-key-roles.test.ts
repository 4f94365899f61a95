// API keys' roles over real HTTP on both dialects: a key is at most its creator's role and may do what
// a session of that role may (GraphQL and REST alike), but never sees or manages the team and never
// changes where money goes; the keys of a removed user are marked, and revoked in one call.
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../src/modules/users/roles.ts";
import { type DashboardClient, postGraphQL, signedInUser } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
const users = {} as Record<Role, DashboardClient>;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  for (const role of ["owner", "admin", "developer", "viewer"] as const) users[role] = await signedInUser(t, merchant.organizationId, role);
});
afterAll(() => t.close());

const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;
const messageOf = (body: any) => body.errors?.[0]?.message;
const asKey = (key: string, query: string, variables: Record<string, unknown> = {}) => postGraphQL(t, { query, variables }, { authorization: `Bearer ${key}` });

const CREATE = `mutation($environment: Environment!, $role: ApiKeyRole, $password: String) {
  createApiKey(environment: $environment, role: $role, password: $password) { key apiKey { id role creatorRemoved } } }`;
const LIST = `{ apiKeys { id prefix role creatorRemoved revokedAt } }`;
const REVOKE_ORPHANS = `mutation { revokeApiKeysOfRemovedUsers { id role creatorRemoved revokedAt } }`;

/** A sandbox key made by `by` (a session or a key) with `role` (absent: the default). */
async function keyMadeBy(by: DashboardClient | string, role?: string) {
  const answer = typeof by === "string" ? await asKey(by, CREATE, { environment: "sandbox", role }) : await by.graphql(CREATE, { environment: "sandbox", role });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.createApiKey as { key: string; apiKey: { id: string; role: string; creatorRemoved: boolean } };
}

describe("a key's role", () => {
  it("is at most its creator's: a developer makes developer keys, and asking for admin is FORBIDDEN naming role, creating nothing", async () => {
    const made = await keyMadeBy(users.developer);
    expect(made.apiKey).toMatchObject({ role: "developer", creatorRemoved: false });
    expect(await t.database.db.apiKey.findUnique({ where: { id: made.apiKey.id } })).toMatchObject({ role: "developer", createdById: users.developer.userId });

    const count = await t.database.db.apiKey.count();
    const refused = await users.developer.graphql(CREATE, { environment: "sandbox", role: "admin" });
    expect(refused.body.errors[0]).toMatchObject({
      message: "Role: choose developer: a key's role is at most yours (developer)",
      extensions: { code: "FORBIDDEN", field: "role" },
    });
    expect(await t.database.db.apiKey.count()).toBe(count);
    // Nor a role that is none: GraphQL's own validation, 400.
    const unknown = await users.developer.graphql(CREATE, { environment: "sandbox", role: "owner" });
    expect(unknown.status).toBe(400);
    expect(messageOf(unknown.body)).toMatch(/"owner".*ApiKeyRole/);
    expect(await t.database.db.apiKey.count()).toBe(count);
  });

  it("is chosen by an owner or admin: admin by default, developer when asked", async () => {
    for (const role of ["owner", "admin"] as const) {
      expect((await keyMadeBy(users[role])).apiKey.role).toBe("admin");
      expect((await keyMadeBy(users[role], "developer")).apiKey.role).toBe("developer");
    }
    const listed = (await users.viewer.graphql(LIST)).body.data.apiKeys;
    expect(new Set(listed.map((k: any) => k.role))).toEqual(new Set(["admin", "developer"]));
  });

  it("of a key made with a key is at most that key's, and its creator is that key's", async () => {
    const developerKey = (await keyMadeBy(users.developer)).key;
    const refused = await asKey(developerKey, CREATE, { environment: "sandbox", role: "admin" });
    expect(refused.body.errors[0]).toMatchObject({ message: "Role: choose developer: a key's role is at most yours (developer key)", extensions: { code: "FORBIDDEN", field: "role" } });
    const made = await keyMadeBy(developerKey);
    expect(made.apiKey.role).toBe("developer");
    expect((await t.database.db.apiKey.findUniqueOrThrow({ where: { id: made.apiKey.id } })).createdById).toBe(users.developer.userId);
  });

  it("decides what the key may do exactly as a session of that role: GraphQL and REST alike", async () => {
    const developerKey = (await keyMadeBy(users.admin, "developer")).key;
    const adminKey = (await keyMadeBy(users.admin, "admin")).key;
    const graphql = [
      { name: "read", query: `{ payments(first: 1) { edges { node { id } } } }` },
      { name: "write", query: `mutation { createCustomer(input: { name: "Ada" }) { id } }` },
      { name: "webhooks", query: `mutation { createWebhookEndpoint(input: { url: "https://hooks.example.com/in", enabledEvents: ["*"] }) { id } }` },
      { name: "keys", query: `mutation { createApiKey(environment: sandbox, role: developer) { key } }` },
      { name: "settings", query: `mutation { updateOrganization(input: { displayName: "Shop" }) { id } }` },
    ];
    for (const { name, query } of graphql) {
      for (const role of ["admin", "developer"] as const) {
        const session = codeOf((await users[role].graphql(query)).body) ?? "ok";
        const key = await asKey(role === "admin" ? adminKey : developerKey, query);
        expect({ name, role, code: codeOf(key.body) ?? "ok" }).toEqual({ name, role, code: session });
        if (session === "FORBIDDEN") expect(messageOf(key.body)).toMatch(new RegExp(`^An API key of role developer may not use \\w+$`));
      }
    }

    // REST: a developer key reads and manages webhooks; the business's writes are refused (403), nothing made.
    const customers = await t.database.db.customer.count();
    const payments = await t.database.db.payment.count();
    expect((await t.api("GET", "/payments", { key: developerKey })).status).toBe(200);
    expect((await t.api("POST", "/webhook-endpoints", { key: developerKey, body: { url: "https://hooks.example.com/rest", enabled_events: ["*"] } })).status).toBe(201);
    for (const [path, body] of [
      ["/customers", { name: "Bo" }],
      ["/payments", { amount: "1" }],
      ["/payment-links", { amount: "1" }],
      ["/invoices", { amount: "1" }],
    ] as const) {
      const refused = await t.api("POST", path, { key: developerKey, body });
      expect({ path, status: refused.status, body: refused.body }).toEqual({
        path,
        status: 403,
        body: { error: `An API key of role developer may not use POST /api/v1${path}` },
      });
    }
    expect(await t.database.db.customer.count()).toBe(customers);
    expect(await t.database.db.payment.count()).toBe(payments);
    // The admin key writes.
    expect((await t.api("POST", "/customers", { key: adminKey, body: { name: "Bo" } })).status).toBe(201);
  });

  it("never opens the team: users, invitations, the audit log, the team's mail", async () => {
    const adminKey = (await keyMadeBy(users.owner, "admin")).key;
    for (const key of [adminKey, merchant.sandboxKey, merchant.liveKey]) {
      for (const [field, query] of [
        ["users", `{ users { email role twoFactorEnabled } }`],
        ["invitations", `{ invitations { email } }`],
        ["auditLog", `{ auditLog(first: 1) { edges { node { actorLabel } } } }`],
        ["inviteUser", `mutation { inviteUser(email: "x@example.test", role: viewer) { id } }`],
      ]) {
        const answer = await asKey(key!, query!);
        expect({ field, code: codeOf(answer.body), data: answer.body.data }).toEqual({ field, code: "FORBIDDEN", data: null });
        expect(messageOf(answer.body)).toBe(`An API key may not use ${field}: the team is managed and seen in the dashboard only`);
      }
    }
    // The viewer shows a key no user.
    expect((await asKey(adminKey, `{ viewer { user { email } } }`)).body.data.viewer.user).toBeNull();
    // Nor the team's mail (invitations, security notices name its people): invoices' mail only.
    const invited = await users.owner.graphql(`mutation { inviteUser(email: "mailed-${Date.now()}@example.test", role: viewer) { id } }`);
    const MAIL = `query($id: String) { mailMessages(first: 50, resourceId: $id) { edges { node { kind recipient } } } }`;
    const invitationMail = { resourceId: invited.body.data.inviteUser.id };
    expect((await users.owner.graphql(MAIL, { id: invitationMail.resourceId })).body.data.mailMessages.edges).toHaveLength(1);
    expect((await asKey(adminKey, MAIL, { id: invitationMail.resourceId })).body.data.mailMessages.edges).toEqual([]);
    const kinds = (await asKey(adminKey, MAIL)).body.data.mailMessages.edges.map((e: any) => e.node.kind);
    expect(kinds.filter((kind: string) => kind !== "invoice")).toEqual([]);
  });
});

describe("where money goes", () => {
  const MONEY = [
    { field: "setSettlementWallet", query: `mutation($password: String) { setSettlementWallet(address: "${Keypair.random().publicKey()}", password: $password) { id } }` },
    { field: "enableAsset", query: `mutation($password: String) { enableAsset(assetCode: "USDC", issuerAddress: "${Keypair.random().publicKey()}", password: $password) { id } }` },
    { field: "setExchangeRate", query: `mutation($password: String) { setExchangeRate(currency: "USD", assetCode: "XLM", price: "0.3", password: $password) { id } }` },
  ];
  const settingsOf = async (organizationId: string) =>
    JSON.stringify(
      await t.database.db.organization.findUnique({
        where: { id: organizationId },
        include: { settings: { orderBy: { environment: "asc" } }, assets: { orderBy: { code: "asc" } }, rates: { orderBy: { currency: "asc" } } },
      }),
    );

  it("is never changed with an API key, not even the operator's live admin key, with a password or without", async () => {
    const own = await t.createMerchant();
    const owner = await signedInUser(t, own.organizationId, "owner");
    const madeLive = await owner.graphql(CREATE, { environment: "production", role: "admin", password: owner.password }, { environment: "production" });
    expect(madeLive.body.errors).toBeUndefined();
    const before = await settingsOf(own.organizationId);
    for (const key of [own.sandboxKey, own.liveKey, madeLive.body.data.createApiKey.key as string]) {
      for (const { field, query } of MONEY) {
        for (const password of [null, owner.password]) {
          const answer = await asKey(key, query, { password });
          expect({ field, code: codeOf(answer.body), data: answer.body.data }).toEqual({ field, code: "FORBIDDEN", data: null });
          expect(messageOf(answer.body)).toBe(`An API key may not use ${field}: where money goes is changed in the dashboard, by a user who gives their password again`);
        }
      }
    }
    expect(await settingsOf(own.organizationId)).toBe(before);
  });

  it("is changed by an owner or admin session with the password again; a developer's session may not", async () => {
    const own = await t.createMerchant();
    const owner = await signedInUser(t, own.organizationId, "owner");
    const developer = await signedInUser(t, own.organizationId, "developer");
    const before = await settingsOf(own.organizationId);
    for (const { field, query } of MONEY) {
      const bare = await owner.graphql(query, {});
      expect(bare.body.errors[0]).toMatchObject({ message: "Password: give your password again to make this change", extensions: { code: "BAD_REQUEST", field: "password" } });
      const wrong = await owner.graphql(query, { password: "not the password" });
      expect(codeOf(wrong.body)).toBe("UNAUTHENTICATED");
      const dev = await developer.graphql(query, { password: developer.password });
      expect(dev.body.errors[0]).toMatchObject({ message: `The role developer may not use ${field}`, extensions: { code: "FORBIDDEN" } });
    }
    expect(await settingsOf(own.organizationId)).toBe(before);
    for (const { query } of MONEY) expect((await owner.graphql(query, { password: owner.password })).body.errors).toBeUndefined();
    expect(await settingsOf(own.organizationId)).not.toBe(before);
  });
});

describe("the keys of a removed user", () => {
  const REMOVE = `mutation($id: ID!) { removeUser(id: $id) }`;

  it("are marked in apiKeys, keep working until revoked, and are revoked in one call", async () => {
    const own = await t.createMerchant();
    const owner = await signedInUser(t, own.organizationId, "owner");
    const leaving = await signedInUser(t, own.organizationId, "admin");
    const theirs = [await keyMadeBy(leaving), await keyMadeBy(leaving, "developer")];
    // A key they made with their key is theirs too.
    theirs.push(await keyMadeBy(theirs[0]!.key));
    const ownersKey = await keyMadeBy(owner);
    expect((await owner.graphql(REMOVE, { id: leaving.userId })).body).toEqual({ data: { removeUser: true } });

    const listed = (await owner.graphql(LIST)).body.data.apiKeys;
    const marked = listed.filter((k: any) => k.creatorRemoved).map((k: any) => k.id);
    expect(marked.sort()).toEqual(theirs.map((k) => k.apiKey.id).sort());
    expect(listed.find((k: any) => k.id === ownersKey.apiKey.id).creatorRemoved).toBe(false);
    for (const { key } of theirs) expect((await t.api("GET", "/payments", { key })).status).toBe(200);

    const revoked = await owner.graphql(REVOKE_ORPHANS);
    expect(revoked.body.errors).toBeUndefined();
    expect(revoked.body.data.revokeApiKeysOfRemovedUsers.map((k: any) => k.id).sort()).toEqual(marked.sort());
    expect(revoked.body.data.revokeApiKeysOfRemovedUsers.every((k: any) => k.creatorRemoved && k.revokedAt)).toBe(true);
    for (const { key } of theirs) expect((await t.api("GET", "/payments", { key })).status).toBe(401);
    expect((await t.api("GET", "/payments", { key: ownersKey.key })).status).toBe(200);
    expect((await t.api("GET", "/payments", { key: own.sandboxKey })).status).toBe(200);
    // Each revocation is in the audit log; a second call finds nothing left.
    const audited = await t.database.db.auditEntry.findMany({ where: { organizationId: own.organizationId, action: "api_key.revoked" } });
    expect(audited.map((e) => e.resourceId).sort()).toEqual(marked.sort());
    expect((await owner.graphql(REVOKE_ORPHANS)).body.data.revokeApiKeysOfRemovedUsers).toEqual([]);
    // The operator's keys (made by no user) are never marked.
    expect((await owner.graphql(LIST)).body.data.apiKeys.filter((k: any) => !k.revokedAt).every((k: any) => !k.creatorRemoved)).toBe(true);
  });

  it("are revoked once when two people click at the same moment", async () => {
    // Each round signs three users in (argon2's cost): few rounds.
    for (let round = 0; round < 3; round++) {
      const own = await t.createMerchant();
      const owner = await signedInUser(t, own.organizationId, "owner");
      const admin = await signedInUser(t, own.organizationId, "admin");
      const leaving = await signedInUser(t, own.organizationId, "developer");
      const theirs = [await keyMadeBy(leaving), await keyMadeBy(leaving)];
      await owner.graphql(REMOVE, { id: leaving.userId });
      const answers = await Promise.all([owner.graphql(REVOKE_ORPHANS), admin.graphql(REVOKE_ORPHANS)]);
      // One revokes both keys; the other finds none left, or (read before the first committed) is refused whole.
      const revokedBy = answers.map((a) => a.body.data?.revokeApiKeysOfRemovedUsers?.length ?? codeOf(a.body));
      expect(revokedBy.sort()).toEqual(expect.arrayContaining([2]));
      expect(revokedBy.filter((n) => n !== 2)).toEqual([expect.toBeOneOf([0, "CONFLICT"])]);
      const audited = await t.database.db.auditEntry.count({ where: { organizationId: own.organizationId, action: "api_key.revoked" } });
      expect(audited).toBe(theirs.length);
    }
  }, 60_000);
});
