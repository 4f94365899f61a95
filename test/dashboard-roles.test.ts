// Roles on the server, over real HTTP on both dialects: each role against each kind of field (read,
// the business's writes, keys and webhooks, the team), the operator's keys (test/api-key-roles.test.ts: keys' roles), the owner rules (an admin
// cannot touch owners, the last owner stays), and a session's subscription ending with its session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../src/modules/users/roles.ts";
import { setUserRole } from "../src/modules/users/users.store.ts";
import { SESSION_IDLE_MS } from "../src/modules/users/sessions.service.ts";
import { type DashboardClient, postGraphQL, signedInUser } from "./support/dashboard.ts";
import { subscribeSse } from "./support/sse.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let other: Merchant;
const users = {} as Record<Role, DashboardClient>;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  other = await t.createMerchant();
  for (const role of ["owner", "admin", "developer", "viewer"] as const) users[role] = await signedInUser(t, merchant.organizationId, role);
});
afterAll(() => t.close());

const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;

/** One operation of each kind a role may or may not do. */
const KINDS = {
  read: { query: `{ payments(first: 1) { edges { node { id } } } customers(first: 1) { edges { node { id } } } users { id } }`, allowed: ["owner", "admin", "developer", "viewer"] },
  write: { query: `mutation { createCustomer(input: { name: "Ada" }) { id } }`, allowed: ["owner", "admin"] },
  developer: {
    query: `mutation { createWebhookEndpoint(input: { url: "https://hooks.example.com/in", enabledEvents: ["*"] }) { secret } }`,
    allowed: ["owner", "admin", "developer"],
  },
  keys: {
    query: `mutation { createApiKey(environment: sandbox, name: "ci") { key } }`,
    allowed: ["owner", "admin", "developer"],
  },
  settings: { query: `mutation { updateOrganization(input: { displayName: "Shop" }) { id } }`, allowed: ["owner", "admin"] },
  team: { query: `mutation($id: ID!, $password: String!) { updateUserRole(id: $id, role: viewer, password: $password) { id role } }`, allowed: ["owner", "admin"] },
} as const;

describe("each role against each kind of field", () => {
  for (const [kind, { query, allowed }] of Object.entries(KINDS)) {
    for (const role of ["owner", "admin", "developer", "viewer"] as const) {
      const may = (allowed as readonly string[]).includes(role);
      it(`${role} ${may ? "may" : "may not"} ${kind}`, async () => {
        const counts = async () => [await t.database.db.customer.count(), await t.database.db.webhookEndpoint.count(), await t.database.db.apiKey.count()];
        const before = await counts();
        const answer = await users[role].graphql(query, kind === "team" ? { id: users.viewer.userId, password: users[role].password } : {});
        if (may) {
          expect(answer.body.errors).toBeUndefined();
        } else {
          expect(answer.body.errors).toEqual([
            expect.objectContaining({ message: expect.stringMatching(`^The role ${role} may not use `), extensions: { code: "FORBIDDEN" } }),
          ]);
          expect(answer.body.data).toBeNull();
          expect(await counts()).toEqual(before);
        }
      });
    }
  }

  it("the operator's (admin) key reads, writes, webhooks; neither sees nor manages the team", async () => {
    const asKey = (query: string, variables = {}) => postGraphQL(t, { query, variables }, { authorization: `Bearer ${merchant.sandboxKey}` });
    expect((await asKey(KINDS.read.query.replace(" users { id }", ""))).body.errors).toBeUndefined();
    expect((await asKey(KINDS.write.query)).body.errors).toBeUndefined();
    expect((await asKey(KINDS.developer.query)).body.errors).toBeUndefined();
    const TEAM_ONLY = "the team is managed and seen in the dashboard only";
    const team = await asKey(KINDS.team.query, { id: users.viewer.userId, password: "a key has none" });
    expect(team.body.errors[0]).toMatchObject({ message: `An API key may not use updateUserRole: ${TEAM_ONLY}`, extensions: { code: "FORBIDDEN" } });
    const listed = await asKey(`{ users { email } }`);
    expect(listed.body).toEqual({ data: null, errors: [expect.objectContaining({ message: `An API key may not use users: ${TEAM_ONLY}`, extensions: { code: "FORBIDDEN" } })] });
    // And REST as ever.
    expect((await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Bo" } })).status).toBe(201);
  });

  it("the checkout's public fields answer any role, and no credential", async () => {
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "2" } });
    const CHECKOUT = `query($id: ID!) { checkout(id: $id) { state } }`;
    expect((await users.viewer.graphql(CHECKOUT, { id: payment.body.id })).body.data.checkout.state).toBe("open");
    expect((await postGraphQL(t, { query: CHECKOUT, variables: { id: payment.body.id } })).body.data.checkout.state).toBe("open");
  });

  it("without a credential, a field needing one is UNAUTHENTICATED, not FORBIDDEN", async () => {
    expect(codeOf((await postGraphQL(t, { query: KINDS.write.query })).body)).toBe("UNAUTHENTICATED");
    expect(codeOf((await postGraphQL(t, { query: KINDS.team.query, variables: { id: users.viewer.userId, password: "none" } })).body)).toBe("UNAUTHENTICATED");
  });
});

describe("the team", () => {
  const UPDATE = `mutation($id: ID!, $role: UserRole!, $password: String!) { updateUserRole(id: $id, role: $role, password: $password) { id role } }`;
  const REMOVE = `mutation($id: ID!) { removeUser(id: $id) }`;

  it("lists the organization's users only", async () => {
    const stranger = await signedInUser(t, other.organizationId, "owner");
    const listed = (await users.viewer.graphql(`{ users { id email role } }`)).body.data.users.map((u: any) => u.id);
    expect(listed).toEqual(expect.arrayContaining(Object.values(users).map((u) => u.userId)));
    expect(listed).not.toContain(stranger.userId);
    // Nor can one reach the other's users.
    expect(codeOf((await users.owner.graphql(UPDATE, { id: stranger.userId, role: "viewer", password: users.owner.password })).body)).toBe("NOT_FOUND");
    expect(codeOf((await users.owner.graphql(REMOVE, { id: stranger.userId })).body)).toBe("NOT_FOUND");
  });

  it("an admin cannot change, make or remove an owner; an owner can", async () => {
    const org = await t.createMerchant();
    const owner = await signedInUser(t, org.organizationId, "owner");
    const admin = await signedInUser(t, org.organizationId, "admin");
    const dev = await signedInUser(t, org.organizationId, "developer");
    expect(codeOf((await admin.graphql(UPDATE, { id: owner.userId, role: "viewer", password: admin.password })).body)).toBe("FORBIDDEN");
    expect(codeOf((await admin.graphql(UPDATE, { id: dev.userId, role: "owner", password: admin.password })).body)).toBe("FORBIDDEN");
    expect(codeOf((await admin.graphql(REMOVE, { id: owner.userId })).body)).toBe("FORBIDDEN");
    expect((await admin.graphql(UPDATE, { id: dev.userId, role: "viewer", password: admin.password })).body.data.updateUserRole.role).toBe("viewer");
    expect((await owner.graphql(UPDATE, { id: admin.userId, role: "owner", password: owner.password })).body.data.updateUserRole.role).toBe("owner");
    // The role takes effect on the session's next request.
    expect((await admin.graphql(`{ viewer { user { role } } }`)).body.data.viewer.user.role).toBe("owner");
    expect((await dev.graphql(KINDS.developer.query)).body.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  it("asks for the caller's password again: a wrong one changes nothing", async () => {
    const org = await t.createMerchant();
    const owner = await signedInUser(t, org.organizationId, "owner");
    const dev = await signedInUser(t, org.organizationId, "developer");
    const wrong = await owner.graphql(UPDATE, { id: dev.userId, role: "admin", password: "not the password" });
    expect(wrong.body.errors[0]).toMatchObject({ message: "Password: this is not your current password", extensions: { code: "UNAUTHENTICATED" } });
    expect((await t.database.db.user.findUniqueOrThrow({ where: { id: dev.userId } })).role).toBe("developer");
    // The session itself goes on.
    expect((await owner.graphql(`{ viewer { user { id } } }`)).body.data.viewer.user.id).toBe(owner.userId);
  });

  it("never demotes or removes the last owner", async () => {
    const org = await t.createMerchant();
    const owner = await signedInUser(t, org.organizationId, "owner");
    const demote = await owner.graphql(UPDATE, { id: owner.userId, role: "admin", password: owner.password });
    expect(demote.body.errors[0]).toMatchObject({ message: "An organization must keep at least one owner", extensions: { code: "CONFLICT" } });
    expect(codeOf((await owner.graphql(REMOVE, { id: owner.userId })).body)).toBe("CONFLICT");
    expect((await owner.graphql(UPDATE, { id: owner.userId, role: "owner", password: owner.password })).body.data.updateUserRole.role).toBe("owner");
    // With a second owner, the first may step down.
    const second = await signedInUser(t, org.organizationId, "admin");
    await owner.graphql(UPDATE, { id: second.userId, role: "owner", password: owner.password });
    expect((await owner.graphql(UPDATE, { id: owner.userId, role: "admin", password: owner.password })).body.data.updateUserRole.role).toBe("admin");
  });

  it("keeps an owner when two owners demote each other at the same moment", async () => {
    // Each round makes four users and checks passwords: argon2's cost on purpose, so few rounds.
    for (let round = 0; round < 3; round++) {
      const org = await t.createMerchant();
      const first = await signedInUser(t, org.organizationId, "owner");
      const second = await signedInUser(t, org.organizationId, "owner");
      const answers = await Promise.all([
        first.graphql(UPDATE, { id: second.userId, role: "admin", password: first.password }),
        second.graphql(UPDATE, { id: first.userId, role: "admin", password: second.password }),
      ]);
      // The later one is refused: CONFLICT (the last owner) or, when its caller was demoted before
      // its request was authorized, FORBIDDEN (an admin cannot change an owner).
      const codes = answers.map((a) => codeOf(a.body) ?? "ok");
      expect(codes.filter((c) => c === "ok")).toHaveLength(1);
      expect(codes.find((c) => c !== "ok")).toMatch(/^(CONFLICT|FORBIDDEN)$/);
      expect(await t.database.db.user.count({ where: { organizationId: org.organizationId, role: "owner" } })).toBe(1);
      // The store alone, the role checks out of the way: two demotions at once, one owner kept.
      const [a, b] = [await signedInUser(t, org.organizationId, "owner"), await signedInUser(t, org.organizationId, "owner")];
      const [kept] = await t.database.db.user.findMany({ where: { organizationId: org.organizationId, role: "owner", id: { notIn: [a.userId, b.userId] } } });
      await setUserRole(t.deps.db, { id: kept!.id, organizationId: org.organizationId }, "admin", new Date());
      const results = await Promise.allSettled(
        [a, b].map((u) => setUserRole(t.deps.db, { id: u.userId, organizationId: org.organizationId }, "viewer", new Date())),
      );
      expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
      expect(await t.database.db.user.count({ where: { organizationId: org.organizationId, role: "owner" } })).toBe(1);
    }
  }, 120_000);

  it("a removed user's sessions end at once", async () => {
    const org = await t.createMerchant();
    const owner = await signedInUser(t, org.organizationId, "owner");
    const leaving = await signedInUser(t, org.organizationId, "developer");
    expect((await owner.graphql(REMOVE, { id: leaving.userId })).body.data).toEqual({ removeUser: true });
    expect(codeOf((await leaving.graphql(`{ viewer { user { id } } }`)).body)).toBe("UNAUTHENTICATED");
    expect(await t.database.db.user.count({ where: { id: leaving.userId } })).toBe(0);
  });

  it("a role that is not one is refused by GraphQL's own validation (400), changing nothing", async () => {
    const answer = await users.owner.graphql(UPDATE, { id: users.viewer.userId, role: "superuser", password: users.owner.password });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].message).toMatch(/"superuser".*UserRole/);
    expect((await t.database.db.user.findUnique({ where: { id: users.viewer.userId } }))!.role).toBe("viewer");
  });
});

describe("open subscriptions of a session", () => {
  it("end when the session is logged out", async () => {
    const user = await signedInUser(t, merchant.organizationId, "viewer");
    const sub = await subscribeSse(t.url, `subscription { paymentEvents { seq type payment { id } } }`, {}, { cookie: user.cookie });
    const created = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    expect((await sub.next(5000)).data.paymentEvents.payment.id).toBe(created.body.id);
    await user.graphql(`mutation { logout }`);
    const loggedOutAt = Date.now();
    expect((await sub.next(3000)).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(Date.now() - loggedOutAt).toBeLessThan(2500);
    sub.close();
  });

  // Last in the file: the clock's jump idles out every session made before it.
  it("end when the session expires, and the expired cookie opens no new one", async () => {
    const user = await signedInUser(t, merchant.organizationId, "viewer");
    const EVENTS = `subscription { paymentEvents { seq type payment { id } } }`;
    const sub = await subscribeSse(t.url, EVENTS, {}, { cookie: user.cookie });
    const created = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    expect((await sub.next(5000)).data.paymentEvents.payment.id).toBe(created.body.id);
    t.clock.advance(SESSION_IDLE_MS + 1000);
    expect((await sub.next(3000)).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    sub.close();
    const again = await subscribeSse(t.url, EVENTS, {}, { cookie: user.cookie });
    expect((await again.next(3000)).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    again.close();
  });
});
