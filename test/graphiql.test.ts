// GraphiQL at /graphql in a real Chromium with no internet: every request that leaves 127.0.0.1 is
// refused and fails the test. The app runs as in production (NODE_ENV=production), where an
// anonymous caller gets no introspection: a query answers only with the key put in the headers editor.
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
/** every URL the page asked for outside loopback (each one refused) */
const outside: string[] = [];

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestApp({ env: { NODE_ENV: "production" } }), launchBrowser({ viewport: { width: 1366, height: 768 } })]);
  merchant = await t.createMerchant();
  await browser.context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1") return route.continue();
    outside.push(url.href);
    return route.abort("internetdisconnected");
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Types `text` over everything in a GraphiQL (Monaco) editor, and drops the brace it closes by itself. */
async function replaceText(editor: Locator, text: string) {
  await editor.click();
  await editor.page().keyboard.press("ControlOrMeta+A");
  await editor.page().keyboard.insertText(text);
  await editor.page().keyboard.press("ControlOrMeta+Shift+End");
  await editor.page().keyboard.press("Delete");
}

describe("GraphiQL at /graphql", () => {
  it("issue 14: renders offline from the installed package and runs a query with the key from the headers editor", async () => {
    const payment = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "3" } });
    const page = await browser.context.newPage();
    // Issue 30: the page's own policy lets GraphiQL do all it does: nothing is blocked.
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${t.url}/graphql`);
    expect(response?.status()).toBe(200);
    expect(outside).toEqual([]);
    const queryEditor = page.locator(".graphiql-query-editor");
    await queryEditor.waitFor();
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor();

    // The headers editor is open with the page: put the key there, then the query.
    await replaceText(page.locator(".graphiql-editor-tool .graphiql-editor").last(), JSON.stringify({ Authorization: `Bearer ${merchant.sandboxKey}` }));
    // Introspection, refused without the key, answers with it: the docs show the schema.
    await page.getByRole("button", { name: /re-fetch graphql schema/i }).click();
    await page.getByRole("button", { name: /show documentation explorer/i }).click();
    await page.getByText("Root Types").waitFor();
    await replaceText(queryEditor, "{ payments(first: 1) { edges { node { id } } } }");
    await run.click();
    await page.locator(".graphiql-response").getByText(payment.body.id).waitFor();

    await page.screenshot({ path: screenshotPath("graphiql") });
    expect(violations).toEqual([]);
    // The key is not written to the browser's storage, where it would outlive the tab.
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(merchant.sandboxKey);
    await page.close();
    expect(outside).toEqual([]);
  });

  it("issue 14: a GET that is not a browser's page visit still answers GraphQL", async () => {
    const query = encodeURIComponent("{ __typename }");
    for (const accept of ["application/json", "*/*", "application/graphql-response+json"]) {
      const res = await fetch(`${t.url}/graphql?query=${query}`, { headers: { accept } });
      expect(await res.json()).toEqual({ data: { __typename: "Query" } });
    }
    const html = await fetch(`${t.url}/graphql`, { headers: { accept: "text/html" } });
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    const text = await html.text();
    expect(text).toContain("Stellar Pay GraphiQL");
    // Nothing on the page is loaded from elsewhere: no script, style, font or icon from a URL.
    expect(text.match(/(src|href)=\\?["']?https?:[^ ]{0,80}/g)).toBeNull();
  });

  it("issue 30: the page is served with a Content-Security-Policy that forbids framing it, and sends subscriptions to /graphql/stream", async () => {
    const html = await fetch(`${t.url}/graphql`, { headers: { accept: "text/html" } });
    const policy = html.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain("unsafe-inline' 'unsafe-eval");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*' blob:/);
    expect(html.headers.get("x-frame-options")).toBe("DENY");
    expect(await html.text()).toContain('"subscriptionsProtocol":"GRAPHQL_SSE"');
    // A GraphQL answer is no page: no policy needed there.
    const answer = await fetch(`${t.url}/graphql?query=${encodeURIComponent("{ __typename }")}`);
    expect(answer.headers.get("content-security-policy")).toBeNull();

    // Another page that frames it gets an empty frame.
    const page = await browser.context.newPage();
    await page.goto(`${t.url}/health`);
    await page.setContent(`<iframe src="${t.url}/graphql" width="800" height="600"></iframe>`);
    const frame = page.locator("iframe");
    await frame.waitFor();
    await page.waitForTimeout(1000);
    expect(await page.frameLocator("iframe").locator(".graphiql-query-editor").count()).toBe(0);
    await page.close();
  });
});
