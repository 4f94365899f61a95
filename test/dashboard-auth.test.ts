// Dashboard sessions over real HTTP: login and its cookie, the viewer, logout, expiry (the injected
// clock), password change, CSRF refusal, login throttling, and the isolation of organizations and
// environments for session callers, on both dialects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../src/modules/users/sessions.service.ts";
import { LOGIN, clientWithCookie, postGraphQL, signedInUser, uniqueEmail } from "./support/dashboard.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let other: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  other = await t.createMerchant();
});
afterAll(() => t.close());

const VIEWER = `{ viewer { user { id email role } organization { id name } environment } }`;
const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;

describe("login", () => {
  it("sets an HttpOnly, SameSite=Lax, Path=/ session cookie and answers the viewer", async () => {
    const email = uniqueEmail("Ada");
    await createUser(t.deps, { organizationId: merchant.organizationId, email: email.toUpperCase(), role: "owner", password: "a long enough password" });
    // The email is matched without regard to case or surrounding spaces.
    const answer = await postGraphQL(t, { query: LOGIN, variables: { email: ` ${email.toUpperCase()} `, password: "a long enough password" } });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.login).toMatchObject({ user: { email: email.toLowerCase(), role: "owner" }, organization: { id: merchant.organizationId }, environment: "sandbox" });
    const cookie = answer.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^sp_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${SESSION_ABSOLUTE_MS / 1000}`);
    // PUBLIC_URL is http here: a Secure cookie would never come back.
    expect(cookie).not.toContain("Secure");
    // The token is stored only as its hash.
    const token = cookie.split(";")[0]!.split("=")[1]!;
    const sessions = await t.database.db.dashboardSession.findMany();
    expect(sessions.some((s) => s.tokenHash === token)).toBe(false);
    const viewer = await clientWithCookie(t, { userId: "", email, password: "", cookie: cookie.split(";")[0]! }).graphql(VIEWER);
    expect(viewer.body.data.viewer).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email: email.toLowerCase(), role: "owner" },
      organization: { id: merchant.organizationId, name: "Test Merchant" },
      environment: "sandbox",
    });
  });

  it("answers a wrong password and an unknown email alike: UNAUTHENTICATED, no cookie", async () => {
    const owner = await signedInUser(t, merchant.organizationId, "owner");
    const wrong = await postGraphQL(t, { query: LOGIN, variables: { email: owner.email, password: "not the password" } });
    const unknown = await postGraphQL(t, { query: LOGIN, variables: { email: uniqueEmail("nobody"), password: "not the password" } });
    for (const answer of [wrong, unknown]) {
      expect(answer.headers.get("set-cookie")).toBeNull();
      expect(answer.body.data).toBeNull();
      expect(answer.body.errors).toEqual([expect.objectContaining({ message: "Invalid email or password", extensions: { code: "UNAUTHENTICATED" } })]);
    }
  });

  it("sets a Secure cookie when PUBLIC_URL is https", async () => {
    const secure = await startTestApp({ env: { PUBLIC_URL: "https://pay.example.test" } });
    try {
      const org = await secure.createMerchant();
      await createUser(secure.deps, { organizationId: org.organizationId, email: "sec@example.test", role: "viewer", password: "a long enough password" });
      const answer = await postGraphQL(secure, { query: LOGIN, variables: { email: "sec@example.test", password: "a long enough password" } });
      expect(answer.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      await secure.close();
    }
  });

  it("refuses a forged or unknown cookie as unauthenticated", async () => {
    const forged = clientWithCookie(t, { userId: "", email: "", password: "", cookie: `sp_session=${"A".repeat(43)}` });
    expect(codeOf((await forged.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
  });
});

describe("sessions end", () => {
  it("on logout: the server forgets the session and the cookie is cleared", async () => {
    const user = await signedInUser(t, merchant.organizationId, "viewer");
    const out = await user.graphql(`mutation { logout }`);
    expect(out.body.data).toEqual({ logout: true });
    expect(out.headers.get("set-cookie")).toMatch(/^sp_session=; .*Max-Age=0/);
    // The old cookie, replayed, no longer opens anything.
    expect(codeOf((await user.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
  });

  it("after the idle time without a request, and at the absolute expiry however busy", async () => {
    const idle = await signedInUser(t, merchant.organizationId, "viewer");
    const busy = await signedInUser(t, merchant.organizationId, "viewer");
    t.clock.advance(SESSION_IDLE_MS - 5 * 60_000);
    expect((await busy.graphql(VIEWER)).body.data.viewer.user.id).toBe(busy.userId);
    t.clock.advance(10 * 60_000);
    expect(codeOf((await idle.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
    // busy was seen 10 minutes ago: still in.
    expect((await busy.graphql(VIEWER)).body.data.viewer.user.id).toBe(busy.userId);
    // Kept busy, it still ends at the absolute expiry.
    for (let elapsed = SESSION_IDLE_MS; elapsed < SESSION_ABSOLUTE_MS; elapsed += SESSION_IDLE_MS / 2) {
      t.clock.advance(SESSION_IDLE_MS / 2);
      const answer = await busy.graphql(VIEWER);
      if (elapsed + SESSION_IDLE_MS / 2 < SESSION_ABSOLUTE_MS) expect(answer.body.data?.viewer.user.id).toBe(busy.userId);
    }
    t.clock.advance(SESSION_IDLE_MS / 2);
    expect(codeOf((await busy.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
  });

  it("on a password change: the other sessions end, this one goes on, and the new password signs in", async () => {
    const user = await signedInUser(t, merchant.organizationId, "developer");
    const login = await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: user.password } });
    const elsewhere = clientWithCookie(t, { ...user, cookie: login.headers.get("set-cookie")!.split(";")[0]! });
    const CHANGE = `mutation($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }`;
    const wrong = await user.graphql(CHANGE, { c: "not my password", n: "a brand new password" });
    expect(codeOf(wrong.body)).toBe("UNAUTHENTICATED");
    const short = await user.graphql(CHANGE, { c: user.password, n: "short" });
    expect(short.body.errors[0]).toMatchObject({ message: "New password: must be at least 10 characters", extensions: { code: "BAD_REQUEST" } });
    expect((await elsewhere.graphql(VIEWER)).body.data.viewer.user.id).toBe(user.userId);

    expect((await user.graphql(CHANGE, { c: user.password, n: "a brand new password" })).body.data).toEqual({ changePassword: true });
    expect((await user.graphql(VIEWER)).body.data.viewer.user.id).toBe(user.userId);
    expect(codeOf((await elsewhere.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
    expect(codeOf((await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: user.password } })).body)).toBe("UNAUTHENTICATED");
    expect((await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: "a brand new password" } })).body.data.login.user.id).toBe(user.userId);
  });
});

describe("CSRF", () => {
  it("refuses a form or text/plain POST that carries the session cookie, and a GET without the header", async () => {
    const user = await signedInUser(t, merchant.organizationId, "owner");
    const query = encodeURIComponent(VIEWER);
    for (const [method, contentType, body, url] of [
      ["POST", "text/plain", JSON.stringify({ query: VIEWER }), "/graphql"],
      ["POST", "application/x-www-form-urlencoded", `query=${query}`, "/graphql"],
      ["POST", "multipart/form-data; boundary=x", `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${VIEWER}\r\n--x--`, "/graphql"],
      ["GET", null, undefined, `/graphql?query=${query}`],
      ["POST", "text/plain", JSON.stringify({ query: VIEWER }), "/graphql/stream"],
    ] as const) {
      const response = await fetch(`${t.url}${url}`, { method, headers: { cookie: user.cookie, ...(contentType && { "content-type": contentType }) }, body });
      expect(response.status, `${method} ${contentType} ${url}`).toBe(403);
      expect(await response.text()).not.toContain(user.userId);
    }
    // GraphiQL's page is no operation: a signed-in browser still gets it.
    const page = await fetch(`${t.url}/graphql`, { headers: { cookie: user.cookie, accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    // With the header, a GET is fine.
    const withHeader = await fetch(`${t.url}/graphql?query=${query}`, { headers: { cookie: user.cookie, "x-graphql-yoga-csrf": "1" } });
    expect((await withHeader.json()).data.viewer.user.id).toBe(user.userId);
  });

  it("leaves API-key callers as they were: a GET without the header still answers", async () => {
    const response = await fetch(`${t.url}/graphql?query=${encodeURIComponent(VIEWER)}`, { headers: { authorization: `Bearer ${merchant.sandboxKey}` } });
    expect(response.status).toBe(200);
    expect((await response.json()).data.viewer).toEqual({ user: null, organization: { id: merchant.organizationId, name: "Test Merchant" }, environment: "sandbox" });
  });
});

describe("login throttling", () => {
  it("refuses further logins for an email after 5 failures, with a clear RATE_LIMITED error, even with the right password", async () => {
    const user = await signedInUser(t, other.organizationId, "viewer");
    for (let i = 0; i < 5; i++) {
      expect(codeOf((await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: `guess number ${i}` } })).body)).toBe("UNAUTHENTICATED");
    }
    const refused = await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: user.password } });
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(refused.body.errors[0].extensions.code).toBe("RATE_LIMITED");
    expect(refused.body.errors[0].message).toMatch(/^Too many failed sign-ins for this email or from this address; try again in \d+ minutes$/);
    // The session it already has goes on.
    expect((await user.graphql(VIEWER)).body.data.viewer.user.id).toBe(user.userId);
  });

  it("refuses further logins from an address after 20 failures, whichever emails they tried", async () => {
    const throttled = await startTestApp();
    try {
      const org = await throttled.createMerchant();
      const user = await signedInUser(throttled, org.organizationId, "viewer");
      for (let i = 0; i < 20; i++) {
        expect(codeOf((await postGraphQL(throttled, { query: LOGIN, variables: { email: uniqueEmail("guess"), password: "wrong password" } })).body)).toBe("UNAUTHENTICATED");
      }
      expect(codeOf((await postGraphQL(throttled, { query: LOGIN, variables: { email: user.email, password: user.password } })).body)).toBe("RATE_LIMITED");
    } finally {
      await throttled.close();
    }
  });
});

describe("scope of a session", () => {
  const PAYMENTS = `{ payments(first: 50) { edges { node { id } } } }`;
  const CREATE = `mutation { createPayment(input: { amount: "3" }) { id } }`;

  it("is its organization, in the environment Service-Environment names (sandbox by default); anything else is BAD_REQUEST", async () => {
    const owner = await signedInUser(t, merchant.organizationId, "owner");
    const sandboxPayment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    const livePayment = await t.api("POST", "/payments", { key: merchant.liveKey, body: { amount: "1" } });
    const otherPayment = await t.api("POST", "/payments", { key: other.sandboxKey, body: { amount: "1" } });
    const ids = async (environment?: string) => (await owner.graphql(PAYMENTS, {}, { environment })).body.data.payments.edges.map((e: any) => e.node.id);
    const sandbox = await ids();
    expect(sandbox).toContain(sandboxPayment.body.id);
    expect(sandbox).not.toContain(livePayment.body.id);
    expect(sandbox).not.toContain(otherPayment.body.id);
    expect(await ids("sandbox")).toEqual(sandbox);
    const live = await ids("production");
    expect(live).toContain(livePayment.body.id);
    expect(live).not.toContain(sandboxPayment.body.id);
    expect(live).not.toContain(otherPayment.body.id);
    const bad = await owner.graphql(PAYMENTS, {}, { environment: "live" });
    expect(bad.body.errors[0]).toMatchObject({ message: "Service-Environment must be sandbox or production", extensions: { code: "BAD_REQUEST" } });
    expect((await owner.graphql(VIEWER, {}, { environment: "production" })).body.data.viewer.environment).toBe("production");

    // What a session creates lands in its organization and environment.
    const created = await owner.graphql(CREATE, {}, { environment: "production" });
    const id = created.body.data.createPayment.id;
    expect((await t.api("GET", `/payments/${id}`, { key: merchant.liveKey })).status).toBe(200);
    expect((await t.api("GET", `/payments/${id}`, { key: merchant.sandboxKey })).status).toBe(404);
    expect((await t.api("GET", `/payments/${id}`, { key: other.liveKey })).status).toBe(404);
    // Another organization's user does not see it.
    const stranger = await signedInUser(t, other.organizationId, "owner");
    const seen = await stranger.graphql(`query($id: ID!) { payment(id: $id) { id } }`, { id }, { environment: "production" });
    expect(seen.body.data?.payment ?? null).toBeNull();
  });
});
