// A first run (#27): what a person who opens the service's address sees first (the dashboard), and
// what a payer sees when the ledger cannot be reached (words, not a 500).
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_UNREACHABLE_MESSAGE } from "../src/ledger/unreachable-network.ts";
import { captureLog } from "./support/captured-log.ts";
import { postGraphQL } from "./support/dashboard.ts";
import { type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it("GET / redirects to the dashboard's sign-in, which is served; other methods on / stay a JSON 404", async () => {
  const root = await fetch(`${t.url}/`, { redirect: "manual" });
  expect(root.status).toBe(302);
  expect(root.headers.get("location")).toBe("/dashboard/");
  const followed = await fetch(`${t.url}/`);
  expect(followed.status).toBe(200);
  expect(followed.headers.get("content-type")).toMatch(/^text\/html/);
  const post = await fetch(`${t.url}/`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  expect(post.status).toBe(404);
  expect(await post.json()).toEqual({ error: "Not found" });
});

describe("a ledger that cannot be reached", () => {
  it("tells the payer in words (UNAVAILABLE), never a 500, and the log warns once, not once per request", async () => {
    const log = captureLog("warn");
    // The default ledger (Horizon) with nothing listening, and the test network's friendbot unreachable (no network here).
    const offline = await startTestApp({ env: { LEDGER: "horizon", HORIZON_TESTNET_URL: "http://127.0.0.1:1", HORIZON_PUBLIC_URL: "http://127.0.0.1:1" }, logger: log.logger });
    try {
      const merchant = await offline.createMerchant();
      const payment = await offline.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "5" } });
      expect(payment.status).toBe(201);
      const payer = Keypair.random().publicKey();
      const answers = [
        await postGraphQL(offline, { query: `mutation($id: ID!) { payWithTestWallet(paymentId: $id) { successful } }`, variables: { id: payment.body.id } }),
        await postGraphQL(offline, {
          query: `mutation($id: ID!, $payer: String!) { prepareCheckoutTransaction(paymentId: $id, payerAddress: $payer) { xdr } }`,
          variables: { id: payment.body.id, payer },
        }),
        await postGraphQL(offline, {
          query: `mutation($id: ID!, $payer: String!) { prepareCheckoutTransaction(paymentId: $id, payerAddress: $payer) { xdr } }`,
          variables: { id: payment.body.id, payer },
        }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.body.errors).toEqual([expect.objectContaining({ message: NETWORK_UNREACHABLE_MESSAGE, extensions: { code: "UNAVAILABLE" } })]);
      }
      const lines = log.lines();
      expect(lines.filter((l) => l.level === "error")).toEqual([]);
      // One warning per network address first failing (friendbot's and Horizon's), none per request after.
      const warnings = lines.filter((l) => l.level === "warn" && String(l.message).includes("unavailable"));
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(warnings.length).toBeLessThanOrEqual(2);
    } finally {
      await offline.close();
    }
  });
});
