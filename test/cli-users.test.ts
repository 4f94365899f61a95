// `admin user create` and `user list` as an operator runs them (a real process on the test app's
// database), and the user they make signing in over GraphQL.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectFailure, expectOk, runAdmin } from "./support/admin-cli.ts";
import { LOGIN, postGraphQL } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

// Every command is a fresh process (tsx, Prisma, argon2): seconds each on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

const admin = (args: string[]) => runAdmin(args, t.config.databaseUrl);

describe("admin user", () => {
  it("create with a password prints user_id, email and role only; that user signs in", async () => {
    const created = await admin(["user", "create", "--org", merchant.organizationId, "--email", "Owner@Example.TEST", "--role", "owner", "--password", "correct horse battery"]);
    expectOk(created);
    expect(created.json).toEqual({ user_id: expect.stringMatching(/^usr_/), email: "owner@example.test", role: "owner" });
    // One JSON object, nothing else on stdout.
    expect(created.stdout.trim().split("\n")).toHaveLength(1);
    const stored = await t.database.db.user.findUniqueOrThrow({ where: { id: created.json.user_id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=1\$/);
    expect(stored.passwordHash).not.toContain("correct horse");

    const login = await postGraphQL(t, { query: LOGIN, variables: { email: "owner@example.test", password: "correct horse battery" } });
    expect(login.body.data.login).toMatchObject({ user: { id: created.json.user_id, role: "owner" }, organization: { id: merchant.organizationId } });
  });

  it("create without a password generates one, printed once, that signs in", async () => {
    const created = await admin(["user", "create", "--org", merchant.organizationId, "--email", "dev@example.test", "--role", "developer"]);
    expectOk(created);
    expect(created.json).toEqual({ user_id: expect.stringMatching(/^usr_/), email: "dev@example.test", role: "developer", password: expect.stringMatching(/^[0-9A-Za-z]{20}$/) });
    const login = await postGraphQL(t, { query: LOGIN, variables: { email: "dev@example.test", password: created.json.password } });
    expect(login.body.data.login.user.role).toBe("developer");

    const listed = await admin(["user", "list", "--org", merchant.organizationId]);
    expectOk(listed);
    expect(listed.json.users).toEqual(
      expect.arrayContaining([{ id: created.json.user_id, email: "dev@example.test", role: "developer", created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]),
    );
    expect(listed.stdout).not.toContain("argon2");
    expect(listed.stdout).not.toContain(created.json.password);
  });

  it("refuses, changing nothing: a taken email, a bad role, a bad email, a short password, an unknown organization, a missing flag", async () => {
    const before = await t.database.db.user.count();
    const org = merchant.organizationId;
    expectFailure(await admin(["user", "create", "--org", org, "--email", "DEV@example.test", "--role", "viewer"]), "email dev@example.test already belongs to a user");
    expectFailure(await admin(["user", "create", "--org", org, "--email", "x@example.test", "--role", "root"]), "role must be one of owner, admin, developer, viewer");
    expectFailure(await admin(["user", "create", "--org", org, "--email", "not-an-email", "--role", "viewer"]), "email must be an email address");
    expectFailure(await admin(["user", "create", "--org", org, "--email", "y@example.test", "--role", "viewer", "--password", "short"]), "password must be at least 10 characters");
    expectFailure(await admin(["user", "create", "--org", "org_unknown", "--email", "z@example.test", "--role", "owner"]), "organization not found");
    expectFailure(await admin(["user", "create", "--org", org, "--role", "owner"]), "--email is required");
    expectFailure(await admin(["user", "list", "--org", "org_unknown"]), "organization not found");
    expect(await t.database.db.user.count()).toBe(before);
  });

  it("help shows --password as optional", async () => {
    const help = await admin(["user", "create", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: npm run --silent admin -- user create --org ID --email EMAIL --role owner|admin|developer|viewer [--password PASSWORD]");
    expect(help.stdout).toContain("(optional) at least 10 characters");
  });
});
