// Issue 30: CSRF on every request. A request a browser sends for another site's page without a
// preflight (a form post, a text/plain fetch) is refused on /graphql and /graphql/stream whether or
// not it carries the session cookie: a cross-site `login` must not replace the victim's session with
// the attacker's (login CSRF). What the checkout page and the dashboard send (JSON) still passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { LOGIN, postGraphQL, signedInUser, uniqueEmail } from "./support/dashboard.ts";
import { subscribeSse } from "./support/sse.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

const VIEWER = `{ viewer { user { id } } }`;

/** An attacker's own account, whose session a login CSRF would plant in the victim's browser. */
async function attackerAccount() {
  const email = uniqueEmail("attacker");
  const password = "attacker-password-123";
  await createUser(t.deps, { organizationId: merchant.organizationId, email, role: "viewer", password });
  return { email, password };
}

/** The bodies a page of another site can make a browser post without a preflight. */
function simplePosts(query: string, variables: Record<string, unknown>) {
  const json = JSON.stringify({ query, variables });
  const form = new URLSearchParams({ query, variables: JSON.stringify(variables) }).toString();
  return [
    { "content-type": "text/plain", body: json },
    { "content-type": "text/plain;charset=UTF-8", body: json },
    { "content-type": "application/x-www-form-urlencoded", body: form },
    { "content-type": "multipart/form-data; boundary=x", body: `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${query}\r\n--x--` },
    // No Content-Type at all (a fetch with a Blob body of no type).
    { "content-type": null, body: json },
  ];
}

describe("issue 30: CSRF on every request", () => {
  it("issue 30: a cross-site login post is refused with or without a session cookie, and sets no cookie", async () => {
    const victim = await signedInUser(t, merchant.organizationId, "owner");
    const attacker = await attackerAccount();
    const posts = simplePosts(LOGIN, attacker);
    // All at once, with the victim's cookie and without: every one is refused before it runs.
    const answers = await Promise.all(
      [victim.cookie, null].flatMap((cookie) =>
        posts.map(async ({ "content-type": contentType, body }) => {
          const headers: Record<string, string> = { ...(contentType && { "content-type": contentType }), ...(cookie && { cookie }) };
          // A Blob of no type leaves Content-Type off, as a browser's form-less post may.
          const response = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: contentType ? body : new Blob([body]) });
          return { what: `${contentType} cookie=${Boolean(cookie)}`, status: response.status, setCookie: response.headers.get("set-cookie"), text: await response.text() };
        }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status, answer.what).toBe(403);
      expect(answer.setCookie, answer.what).toBeNull();
      expect(answer.text, answer.what).toContain("CSRF");
    }
    // The victim's session is still theirs.
    expect((await victim.graphql(VIEWER)).body.data.viewer.user.id).toBe(victim.userId);
    // The same login as JSON (what the dashboard sends) signs in.
    const json = await postGraphQL(t, { query: LOGIN, variables: attacker });
    expect(json.status).toBe(200);
    expect(json.headers.get("set-cookie")).toMatch(/^sp_session=/);
  });

  it("issue 30: a non-JSON POST without a cookie is refused on /graphql and /graphql/stream; with x-graphql-yoga-csrf it runs", async () => {
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "2" } });
    const CHECKOUT = `query ($id: ID!) { checkout(id: $id) { state } }`;
    for (const path of ["/graphql", "/graphql/stream"]) {
      const answer = await fetch(`${t.url}${path}`, {
        method: "POST",
        headers: { "content-type": "text/plain", accept: "text/event-stream" },
        body: JSON.stringify({ query: CHECKOUT, variables: { id: payment.body.id } }),
      });
      expect(answer.status, path).toBe(403);
      expect(await answer.text()).not.toContain("open");
    }
    // The header is the proof a browser preflights: yoga reads the form then.
    const withHeader = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-graphql-yoga-csrf": "1" },
      body: new URLSearchParams({ query: CHECKOUT, variables: JSON.stringify({ id: payment.body.id }) }).toString(),
    });
    expect(withHeader.status).toBe(200);
    expect((await withHeader.json()).data.checkout.state).toBe("open");
  });

  it("issue 30: what the checkout page and the dashboard send still passes: JSON posts, the stream's JSON post, a key's GET", async () => {
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "2" } });
    const variables = { id: payment.body.id };
    // The checkout page: JSON, no cookie, no key (checkout-ui/src/api.ts).
    const load = await postGraphQL(t, { query: `query ($id: ID!) { checkout(id: $id) { state } }`, variables }, { accept: "application/json" });
    expect(load.body.data.checkout.state).toBe("open");
    const watch = await subscribeSse(t.url, `subscription ($id: ID!) { checkout(id: $id) { state } }`, variables);
    expect((await watch.next()).data.checkout.state).toBe("open");
    watch.close();
    // The dashboard: JSON with its cookie (checkout-ui/dashboard/graphql.ts).
    const user = await signedInUser(t, merchant.organizationId, "owner");
    expect((await user.graphql(VIEWER)).body.data.viewer.user.id).toBe(user.userId);
    const events = await subscribeSse(t.url, `subscription { paymentEvents { seq } }`, {}, { cookie: user.cookie });
    expect(events.status).toBe(200);
    events.close();
    // An API key's GET, no header.
    const get = await fetch(`${t.url}/graphql?query=${encodeURIComponent("{ __typename }")}`, { headers: { authorization: `Bearer ${merchant.sandboxKey}` } });
    expect(await get.json()).toEqual({ data: { __typename: "Query" } });
  });
});
