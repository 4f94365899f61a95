// Sign-in under bursts, as an attacker would send them (#30): every attempt takes its point before
// the password or code is checked, so requests sent together cannot get past a budget; argon2 runs a
// bounded number at once; failures from elsewhere do not lock a user out where they signed in
// before; a TOTP code signs in once; a reset or change of password ends every other reset link.
// Addresses are set with X-Forwarded-For (TRUST_PROXY), as behind the operator's proxy.
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken, newToken } from "../src/modules/users/link-tokens.ts";
import { insertPasswordResetStatement } from "../src/modules/users/password-resets.store.ts";
import { createUser } from "../src/modules/users/users.service.ts";
import { typedSql } from "../src/db/client.ts";
import { type DashboardClient, clientWithCookie, postGraphQL, uniqueEmail } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp({ env: { TRUST_PROXY: "true" } });
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

const PASSWORD = "the right password, long";
const LOGIN_WITH_CODE = `mutation($email: String!, $password: String!, $code: String) { login(email: $email, password: $password, code: $code) { user { id } } }`;
const codeOf = (answer: { body: any }) => answer.body.errors?.[0]?.extensions?.code ?? (answer.body.data ? "OK" : "NONE");
const messageOf = (answer: { body: any }) => answer.body.errors?.[0]?.message;
const from = (address: string) => ({ "x-forwarded-for": address });
/** Counts each answer's code: OK, UNAUTHENTICATED, RATE_LIMITED... */
const tally = (answers: { body: any }[]) => answers.reduce<Record<string, number>>((counts, a) => ({ ...counts, [codeOf(a)]: (counts[codeOf(a)] ?? 0) + 1 }), {});

/**
 * Sends wrong tries one at a time until the budget refuses one; answers how many were evaluated
 * (UNAUTHENTICATED) first. A burst's tries refused because argon2 was busy gave their point back, so
 * a budget's failures are what the burst evaluated plus these.
 */
async function failuresUntilRefused(send: (i: number) => Promise<{ body: any }>): Promise<number> {
  for (let i = 0; i <= 5; i++) {
    const answer = await send(i);
    if (codeOf(answer) === "RATE_LIMITED") {
      expect(messageOf(answer)).toMatch(/^Too many failed/);
      return i;
    }
    expect(codeOf(answer)).toBe("UNAUTHENTICATED");
  }
  throw new Error("no budget refused six wrong tries in a row");
}

async function newUser(role: "owner" | "viewer" = "owner") {
  const email = uniqueEmail(role);
  const { user } = await createUser(t.deps, { organizationId: merchant.organizationId, email, role, password: PASSWORD });
  return { id: user.id, email };
}

const login = (email: string, password: string, address: string, code?: string) =>
  postGraphQL(t, { query: LOGIN_WITH_CODE, variables: { email, password, code } }, from(address));

async function signedIn(email: string, address: string): Promise<DashboardClient> {
  const answer = await login(email, PASSWORD, address);
  expect(codeOf(answer)).toBe("OK");
  const cookie = answer.headers.get("set-cookie")!.split(";")[0]!;
  return clientWithCookie(t, { userId: answer.body.data.login.user.id, email, password: PASSWORD, cookie });
}

describe("a burst of logins", () => {
  it("250 at once for one email from 250 addresses: at most the email's budget (5) is evaluated; the right password is then refused", async () => {
    const user = await newUser();
    const rightAt = 137;
    const answers = await Promise.all(
      Array.from({ length: 250 }, (_, i) => login(user.email, i === rightAt ? PASSWORD : `wrong guess ${i}`, `198.51.${i >> 8}.${i & 255}`)),
    );
    const counts = tally(answers);
    // Evaluated: the wrong ones answered UNAUTHENTICATED, and the right one if it got a point.
    const evaluated = (counts.UNAUTHENTICATED ?? 0) + (counts.OK ?? 0);
    expect(evaluated).toBeLessThanOrEqual(5);
    expect(counts.RATE_LIMITED).toBe(250 - evaluated);
    if (counts.OK) return; // the right one was among the evaluated: signed in, as it should be.
    expect(evaluated + (await failuresUntilRefused((i) => login(user.email, `late guess ${i}`, `198.51.99.${i}`)))).toBe(5);
    // Now the right password from a new address is refused, before argon2.
    const after = await login(user.email, PASSWORD, "198.51.100.250");
    expect(codeOf(after)).toBe("RATE_LIMITED");
    expect(messageOf(after)).toMatch(/^Too many failed sign-ins for this email or from this address; try again in \d+ minutes$/);
    expect(after.headers.get("set-cookie")).toBeNull();
  });

  it("100 TOTP guesses at once with the right password: at most the budget is evaluated, the right code then refused", async () => {
    const user = await newUser();
    const owner = await signedIn(user.email, "203.0.113.7");
    const secret = (await owner.graphql(`mutation { beginTwoFactorSetup { secret } }`)).body.data.beginTwoFactorSetup.secret;
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    expect((await owner.graphql(`mutation($code: String!) { confirmTwoFactor(code: $code) }`, { code: totp.generate({ timestamp: t.clock.now().getTime() }) })).body.errors).toBeUndefined();
    t.clock.advance(30_000);
    const right = totp.generate({ timestamp: t.clock.now().getTime() });
    const guesses = Array.from({ length: 100 }, (_, i) => String(i).padStart(6, "0")).filter((c) => c !== right);
    // From an address the user never signed in from: the email's budget holds too.
    const answers = await Promise.all(guesses.map((code) => login(user.email, PASSWORD, "192.0.2.44", code)));
    const counts = tally(answers);
    expect(counts.UNAUTHENTICATED).toBeLessThanOrEqual(5);
    expect(counts.RATE_LIMITED).toBe(guesses.length - counts.UNAUTHENTICATED!);
    const wrong = (i: number) => guesses[guesses.length - 1 - i]!;
    expect(counts.UNAUTHENTICATED! + (await failuresUntilRefused((i) => login(user.email, PASSWORD, "192.0.2.44", wrong(i))))).toBe(5);
    expect(codeOf(await login(user.email, PASSWORD, "192.0.2.44", right))).toBe("RATE_LIMITED");
  });

  it("40 wrong current passwords at once in changePassword: at most the budget is evaluated, then the right one is refused too", async () => {
    const user = await newUser();
    const owner = await signedIn(user.email, "203.0.113.8");
    const CHANGE = `mutation($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }`;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => owner.graphql(CHANGE, { c: `wrong current ${i}`, n: "a new password, long" }, { headers: from("203.0.113.8") })));
    const counts = tally(answers);
    expect(counts.UNAUTHENTICATED).toBeLessThanOrEqual(5);
    expect(counts.RATE_LIMITED).toBe(40 - counts.UNAUTHENTICATED!);
    const late = (i: number) => owner.graphql(CHANGE, { c: `late wrong ${i}`, n: "a new password, long" }, { headers: from("203.0.113.8") });
    expect(counts.UNAUTHENTICATED! + (await failuresUntilRefused(late))).toBe(5);
    const right = await owner.graphql(CHANGE, { c: PASSWORD, n: "a new password, long" }, { headers: from("203.0.113.8") });
    expect(codeOf(right)).toBe("RATE_LIMITED");
    // The password did not change.
    expect(codeOf(await login(user.email, PASSWORD, "203.0.113.8"))).toBe("RATE_LIMITED");
    expect(codeOf(await login(user.email, "a new password, long", "203.0.113.9"))).toBe("UNAUTHENTICATED");
  });

  it("re-authentication counts as a login: a burst of wrong passwords on a live key's creation evaluates at most the budget", async () => {
    const user = await newUser();
    const owner = await signedIn(user.email, "203.0.113.10");
    const CREATE = `mutation($p: String) { createApiKey(environment: production, name: "burst", password: $p) { key } }`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => owner.graphql(CREATE, { p: `wrong ${i}` }, { environment: "production", headers: from("203.0.113.10") })),
    );
    const counts = tally(answers);
    expect(counts.UNAUTHENTICATED).toBeLessThanOrEqual(5);
    expect(counts.RATE_LIMITED).toBe(30 - counts.UNAUTHENTICATED!);
    expect(await t.database.db.apiKey.count({ where: { name: "burst" } })).toBe(0);
  });

  it("argon2 runs a bounded number at once: a flood of logins for many emails is answered, some at once with RATE_LIMITED, none with an error", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => login(uniqueEmail("flood"), "not anyone's password", `100.64.${i >> 8}.${i & 255}`)));
    const counts = tally(answers);
    expect(Object.keys(counts).every((code) => code === "UNAUTHENTICATED" || code === "RATE_LIMITED")).toBe(true);
    expect(counts.RATE_LIMITED).toBeGreaterThan(0);
    const busy = answers.find((a) => codeOf(a) === "RATE_LIMITED")!;
    expect(messageOf(busy)).toBe("Too many sign-ins at once; try again in a few seconds");
    // Those refused for being busy spent nothing of their email's budget: the owner of such an email could sign in.
    const user = await newUser();
    expect(codeOf(await login(user.email, PASSWORD, "100.64.9.9"))).toBe("OK");
  });
});

describe("lockout is no denial of service", () => {
  it("failures from other addresses do not keep the user out where they signed in before; a new address is held to the email's budget", async () => {
    const user = await newUser();
    await signedIn(user.email, "203.0.113.20");
    const failures = [];
    for (let i = 0; i < 30; i++) failures.push(await login(user.email, `guess ${i}`, `192.0.2.${100 + i}`));
    expect(tally(failures)).toEqual({ UNAUTHENTICATED: 5, RATE_LIMITED: 25 });
    // The known address still signs in; an unknown one, even with the right password, is refused.
    expect(codeOf(await login(user.email, PASSWORD, "203.0.113.20"))).toBe("OK");
    expect(codeOf(await login(user.email, PASSWORD, "203.0.113.21"))).toBe("RATE_LIMITED");
  });

  it("the known address has a budget of its own: five failures there refuse it too, and a success forgets its typos", async () => {
    const user = await newUser();
    await signedIn(user.email, "203.0.113.30");
    for (let i = 0; i < 4; i++) expect(codeOf(await login(user.email, `typo ${i}`, "203.0.113.30"))).toBe("UNAUTHENTICATED");
    expect(codeOf(await login(user.email, PASSWORD, "203.0.113.30"))).toBe("OK");
    for (let i = 0; i < 5; i++) expect(codeOf(await login(user.email, `typo ${i}`, "203.0.113.30"))).toBe("UNAUTHENTICATED");
    expect(codeOf(await login(user.email, PASSWORD, "203.0.113.30"))).toBe("RATE_LIMITED");
  });
});

describe("one-time codes and links", () => {
  it("a TOTP code signs in once, even sent four times at once, and an earlier step's code is refused after it", async () => {
    const user = await newUser();
    const owner = await signedIn(user.email, "203.0.113.40");
    const secret = (await owner.graphql(`mutation { beginTwoFactorSetup { secret } }`)).body.data.beginTwoFactorSetup.secret;
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    const codeAt = (ms: number) => totp.generate({ timestamp: ms });
    await owner.graphql(`mutation($code: String!) { confirmTwoFactor(code: $code) }`, { code: codeAt(t.clock.now().getTime()) });
    // Four at once and one more: the five tries of the (email, address) budget, which each success clears.
    for (let round = 0; round < 3; round++) {
      // Into a step of its own (codes of the step before stay within the drift window).
      const now = t.clock.now().getTime();
      t.clock.advance(30_000 - (now % 30_000) + 1_000);
      const code = codeAt(t.clock.now().getTime());
      const answers = await Promise.all(Array.from({ length: 4 }, () => login(user.email, PASSWORD, "203.0.113.40", code)));
      expect(tally(answers), `round ${round}`).toEqual({ OK: 1, UNAUTHENTICATED: 3 });
      expect(answers.filter((a) => codeOf(a) === "UNAUTHENTICATED").every((a) => messageOf(a) === "Authentication code: this is not the code your app shows now, nor an unused recovery code")).toBe(true);
      // The step before, still within the drift window, is refused too: it is older than the one used.
      expect(messageOf(await login(user.email, PASSWORD, "203.0.113.40", codeAt(t.clock.now().getTime() - 30_000)))).toBe("Authentication code: this is not the code your app shows now, nor an unused recovery code");
    }
  });

  async function resetLink(userId: string) {
    const token = newToken();
    const now = t.clock.now();
    const row = { id: t.deps.ids.newId("pwr"), userId, tokenHash: hashToken(token), expiresAt: new Date(now.getTime() + 3_600_000), usedAt: null, createdAt: now };
    await typedSql(t.deps.db).direct.batch([insertPasswordResetStatement(t.deps.db, row)]);
    return token;
  }
  const RESET = `mutation($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }`;

  it("a password reset ends every other reset link of the user", async () => {
    const user = await newUser();
    const older = await resetLink(user.id);
    const newer = await resetLink(user.id);
    expect((await postGraphQL(t, { query: RESET, variables: { token: newer, newPassword: "set by the newer link" } })).body).toEqual({ data: { resetPassword: true } });
    const stale = await postGraphQL(t, { query: RESET, variables: { token: older, newPassword: "set by the older link" } });
    expect(messageOf(stale)).toBe("This link has already been used: ask for a new one");
    expect(codeOf(await login(user.email, "set by the newer link", "203.0.113.50"))).toBe("OK");
  });

  it("a password change ends every reset link of the user", async () => {
    const user = await newUser();
    const owner = await signedIn(user.email, "203.0.113.51");
    const link = await resetLink(user.id);
    const CHANGE = `mutation($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }`;
    expect((await owner.graphql(CHANGE, { c: PASSWORD, n: "changed in the dashboard" }, { headers: from("203.0.113.51") })).body).toEqual({ data: { changePassword: true } });
    const stale = await postGraphQL(t, { query: RESET, variables: { token: link, newPassword: "set by an old link" } });
    expect(messageOf(stale)).toBe("This link has already been used: ask for a new one");
    expect(codeOf(await login(user.email, "changed in the dashboard", "203.0.113.51"))).toBe("OK");
  });
});
