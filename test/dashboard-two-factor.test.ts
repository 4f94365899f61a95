// Two-factor sign-in over real HTTP: setup with the authenticator app's code (computed here as the
// app would, at the injected clock's time), login asking for the code, recovery codes used once,
// turning it off with the password and a code, and an owner requiring it of the whole organization.
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postGraphQL, signedInUser } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

const LOGIN = `mutation($email: String!, $password: String!, $code: String) { login(email: $email, password: $password, code: $code) { user { id twoFactorEnabled } } }`;
const BEGIN = `mutation { beginTwoFactorSetup { secret uri } }`;
const CONFIRM = `mutation($code: String!) { confirmTwoFactor(code: $code) }`;
const codeAt = (secret: string, at: Date) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });
/**
 * Moves the clock to 1 s into the next 30 s step: a code computed now stays current (and one a step
 * old stays within the window) for the next 29 s however busy the machine, instead of turning over
 * between the test computing it and the server checking it.
 */
function startOfStep() {
  const now = t.clock.now().getTime();
  t.clock.advance(30_000 - (now % 30_000) + 1_000);
}
const errorOf = (body: any) => body.errors?.[0] && { message: body.errors[0].message, code: body.errors[0].extensions?.code };

describe("two-factor sign-in", () => {
  it("is set up with the app's code, then asked at login; recovery codes sign in once each; the password turns it off", async () => {
    const user = await signedInUser(t, merchant.organizationId, "owner");
    const setup = (await user.graphql(BEGIN)).body.data.beginTwoFactorSetup;
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.uri).toBe(`otpauth://totp/Stellar%20Pay:${encodeURIComponent(user.email)}?issuer=Stellar%20Pay&secret=${setup.secret}&algorithm=SHA1&digits=6&period=30`);
    // The secret is stored sealed, never as it is.
    const stored = await t.database.db.user.findUniqueOrThrow({ where: { id: user.userId } });
    expect(stored.totpSecret).not.toContain(setup.secret);
    expect(stored.totpEnabledAt).toBeNull();

    const wrong = await user.graphql(CONFIRM, { code: "000000" === codeAt(setup.secret, t.clock.now()) ? "111111" : "000000" });
    expect(errorOf(wrong.body)).toEqual({ message: "Authentication code: this is not the code your app shows now", code: "BAD_REQUEST" });
    startOfStep();
    const confirmed = await user.graphql(CONFIRM, { code: codeAt(setup.secret, t.clock.now()) });
    const recovery: string[] = confirmed.body.data.confirmTwoFactor;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    // Read off paper and typed: groups of four with none of the look-alikes 0/O, 1/l/I.
    for (const code of recovery) expect(code).toMatch(/^[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}$/);
    const hashes = (await t.database.db.user.findUniqueOrThrow({ where: { id: user.userId } })).recoveryCodeHashes!;
    for (const code of recovery) expect(hashes).not.toContain(code);

    // Login: the password alone is not enough.
    const login = (variables: Record<string, unknown>) => postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: user.password, ...variables } });
    const noCode = await login({});
    expect(errorOf(noCode.body)).toEqual({ message: "A code from your authenticator app (or a recovery code) is required", code: "UNAUTHENTICATED" });
    expect(noCode.headers.get("set-cookie")).toBeNull();
    const badCode = await login({ code: "12345x" });
    expect(errorOf(badCode.body)).toEqual({ message: "Authentication code: this is not the code your app shows now, nor an unused recovery code", code: "UNAUTHENTICATED" });
    expect(badCode.headers.get("set-cookie")).toBeNull();
    // A wrong password with a right code is still the one answer.
    const wrongPassword = await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: "not the password", code: codeAt(setup.secret, t.clock.now()) } });
    expect(errorOf(wrongPassword.body)).toEqual({ message: "Invalid email or password", code: "UNAUTHENTICATED" });

    // The app's code, 30 seconds either side of now too (clock drift), not two minutes off.
    t.clock.advance(60_000);
    startOfStep();
    expect((await login({ code: codeAt(setup.secret, new Date(t.clock.now().getTime() - 30_000)) })).body.data.login.user.twoFactorEnabled).toBe(true);
    expect(errorOf((await login({ code: codeAt(setup.secret, new Date(t.clock.now().getTime() - 120_000)) })).body)?.code).toBe("UNAUTHENTICATED");

    // A recovery code signs in once.
    const withRecovery = await login({ code: recovery[3] });
    expect(withRecovery.body.data.login.user.id).toBe(user.userId);
    expect(withRecovery.headers.get("set-cookie")).toMatch(/^sp_session=/);
    expect(errorOf((await login({ code: recovery[3] })).body)?.message).toBe("Authentication code: this is not the code your app shows now, nor an unused recovery code");
    // Typed as people type it: upper case, without the dashes.
    expect((await login({ code: ` ${recovery[5]!.toUpperCase().replaceAll("-", " ")} ` })).body.data.login.user.id).toBe(user.userId);
    expect(JSON.parse((await t.database.db.user.findUniqueOrThrow({ where: { id: user.userId } })).recoveryCodeHashes!)).toHaveLength(8);

    // Off, with the password and a code (not without either).
    const DISABLE = `mutation($p: String!, $c: String!) { disableTwoFactor(password: $p, code: $c) }`;
    startOfStep();
    const current = codeAt(setup.secret, t.clock.now());
    expect(errorOf((await user.graphql(DISABLE, { p: "not the password", c: current })).body)?.code).toBe("UNAUTHENTICATED");
    expect(errorOf((await user.graphql(DISABLE, { p: user.password, c: current === "000000" ? "111111" : "000000" })).body)).toEqual({
      message: "Authentication code: this is not the code your app shows now, nor an unused recovery code",
      code: "UNAUTHENTICATED",
    });
    expect((await user.graphql(DISABLE, { p: user.password, c: current })).body.data).toEqual({ disableTwoFactor: true });
    expect((await login({})).body.data.login.user.twoFactorEnabled).toBe(false);
  });

  it("is asked again, with the password, to change a role", async () => {
    const owner = await signedInUser(t, merchant.organizationId, "owner");
    const dev = await signedInUser(t, merchant.organizationId, "developer");
    const { secret } = (await owner.graphql(BEGIN)).body.data.beginTwoFactorSetup;
    startOfStep();
    await owner.graphql(CONFIRM, { code: codeAt(secret, t.clock.now()) });
    const UPDATE = `mutation($id: ID!, $password: String!, $code: String) { updateUserRole(id: $id, role: admin, password: $password, code: $code) { role } }`;
    const noCode = await owner.graphql(UPDATE, { id: dev.userId, password: owner.password });
    expect(errorOf(noCode.body)).toEqual({ message: "A code from your authenticator app (or a recovery code) is required", code: "UNAUTHENTICATED" });
    expect(errorOf((await owner.graphql(UPDATE, { id: dev.userId, password: owner.password, code: "000000" === codeAt(secret, t.clock.now()) ? "111111" : "000000" })).body)?.message).toBe("Authentication code: this is not the code your app shows now, nor an unused recovery code");
    expect((await t.database.db.user.findUniqueOrThrow({ where: { id: dev.userId } })).role).toBe("developer");
    startOfStep();
    const done = await owner.graphql(UPDATE, { id: dev.userId, password: owner.password, code: codeAt(secret, t.clock.now()) });
    expect(done.body.data.updateUserRole.role).toBe("admin");
  });

  it("an owner with it on requires it of everyone: a session without it may then only set it up, and cannot turn it off", async () => {
    // An organization of its own: the requirement would reach the other tests' users.
    const org = await t.createMerchant();
    const REQUIRE = `mutation($r: Boolean!, $p: String!, $c: String!) { setTwoFactorRequired(required: $r, password: $p, code: $c) }`;
    const VIEWER = `{ viewer { twoFactorSetupRequired user { twoFactorEnabled } organization { twoFactorRequired } } }`;
    const PAYMENTS = `{ payments(first: 1) { edges { node { id } } } }`;
    const owner = await signedInUser(t, org.organizationId, "owner");
    const admin = await signedInUser(t, org.organizationId, "admin");
    const dev = await signedInUser(t, org.organizationId, "developer");

    // Not before the owner has it on (nobody locks the organization out), and never by an admin.
    expect(errorOf((await owner.graphql(REQUIRE, { r: true, p: owner.password, c: "123456" })).body)).toEqual({
      message: "Turn on your own two-factor sign-in before requiring it of everyone",
      code: "CONFLICT",
    });
    expect(errorOf((await admin.graphql(REQUIRE, { r: true, p: admin.password, c: "123456" })).body)).toEqual({
      message: "Only an owner may require two-factor sign-in",
      code: "FORBIDDEN",
    });
    const { secret } = (await owner.graphql(BEGIN)).body.data.beginTwoFactorSetup;
    startOfStep();
    await owner.graphql(CONFIRM, { code: codeAt(secret, t.clock.now()) });
    expect(errorOf((await owner.graphql(REQUIRE, { r: true, p: "not the password", c: codeAt(secret, t.clock.now()) })).body)?.code).toBe("UNAUTHENTICATED");
    expect((await owner.graphql(VIEWER)).body.data.viewer.organization.twoFactorRequired).toBe(false);
    const mailsBefore = await t.database.db.mailMessage.count({ where: { kind: "security_notice" } });
    // The confirming code is used up: the next step's code.
    startOfStep();
    expect((await owner.graphql(REQUIRE, { r: true, p: owner.password, c: codeAt(secret, t.clock.now()) })).body.data).toEqual({ setTwoFactorRequired: true });
    expect(await t.database.db.auditEntry.findFirst({ where: { organizationId: org.organizationId }, orderBy: { createdAt: "desc" } })).toMatchObject({
      action: "two_factor.required",
      actorId: owner.userId,
    });
    expect(await t.database.db.mailMessage.count({ where: { kind: "security_notice" } })).toBe(mailsBefore + 1);

    // The developer's session goes on, but may only see the viewer and set two-factor up.
    expect((await dev.graphql(VIEWER)).body.data.viewer).toEqual({
      twoFactorSetupRequired: true,
      user: { twoFactorEnabled: false },
      organization: { twoFactorRequired: true },
    });
    expect(errorOf((await dev.graphql(PAYMENTS)).body)).toEqual({
      message: "Your organization requires two-factor sign-in: set yours up first (beginTwoFactorSetup, then confirmTwoFactor)",
      code: "FORBIDDEN",
    });
    // A fresh login is let in the same way: the password alone opens only the setup.
    const fresh = await postGraphQL(t, { query: `mutation($e: String!, $p: String!) { login(email: $e, password: $p) { twoFactorSetupRequired } }`, variables: { e: dev.email, p: dev.password } });
    expect(fresh.body.data.login.twoFactorSetupRequired).toBe(true);
    const devSetup = (await dev.graphql(BEGIN)).body.data.beginTwoFactorSetup;
    startOfStep();
    await dev.graphql(CONFIRM, { code: codeAt(devSetup.secret, t.clock.now()) });
    expect((await dev.graphql(VIEWER)).body.data.viewer.twoFactorSetupRequired).toBe(false);
    expect((await dev.graphql(PAYMENTS)).body.errors).toBeUndefined();

    // Nobody turns theirs off while it is required; once the owner stops requiring it, they may.
    const DISABLE = `mutation($p: String!, $c: String!) { disableTwoFactor(password: $p, code: $c) }`;
    expect(errorOf((await dev.graphql(DISABLE, { p: dev.password, c: codeAt(devSetup.secret, t.clock.now()) })).body)?.code).toBe("CONFLICT");
    startOfStep();
    expect((await owner.graphql(REQUIRE, { r: false, p: owner.password, c: codeAt(secret, t.clock.now()) })).body.data).toEqual({ setTwoFactorRequired: true });
    expect((await dev.graphql(DISABLE, { p: dev.password, c: codeAt(devSetup.secret, t.clock.now()) })).body.data).toEqual({ disableTwoFactor: true });
  });

  it("cannot be begun twice once on, nor confirmed before it is begun, nor by an API key", async () => {
    const user = await signedInUser(t, merchant.organizationId, "viewer");
    expect(errorOf((await user.graphql(CONFIRM, { code: "123456" })).body)).toEqual({ message: "Begin the setup first (beginTwoFactorSetup)", code: "BAD_REQUEST" });
    const { secret } = (await user.graphql(BEGIN)).body.data.beginTwoFactorSetup;
    startOfStep();
    await user.graphql(CONFIRM, { code: codeAt(secret, t.clock.now()) });
    expect(errorOf((await user.graphql(BEGIN)).body)?.code).toBe("CONFLICT");
    const byKey = await postGraphQL(t, { query: BEGIN }, { authorization: `Bearer ${merchant.sandboxKey}` });
    expect(errorOf(byKey.body)?.code).toBe("BAD_REQUEST");
  });
});
