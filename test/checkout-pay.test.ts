// Paying from the checkout page in a real Chromium, on the simulated network with the app's workers
// running: the sandbox test wallet pays, the ledger streamer completes the payment, and the page
// turns to Paid over SSE without a reload.
import { Asset, Keypair, Networks, TransactionBuilder } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { enableAsset } from "../src/modules/organizations/organizations.service.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let browser: Browser;
let network: SimulatedNetwork;
let usdc: Asset;

beforeAll(async () => {
  [t, browser] = await Promise.all([
    startTestApp({ workers: true, env: { LEDGER: "simulated", SIM_LEDGER_CLOSE_MS: "100" } }),
    launchBrowser(),
  ]);
  merchant = await t.createMerchant();
  network = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;
  await network.fund(merchant.wallet.publicKey());
  usdc = network.createAsset("USDC", Keypair.random());
  await enableAsset(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", code: "USDC", issuer: usdc.getIssuer() });
  network.setTrustline(merchant.wallet.publicKey(), usdc);
  network.addOffer({ selling: usdc, buying: Asset.native(), price: "4", amount: "1000000" });
});

/**
 * Stands in for the Freighter extension: answers the freighter-api's window messages, and signs in
 * this process with the payer's key once `approve()` is called, as a person approving in the wallet.
 */
async function mockFreighter(page: import("playwright-core").Page, payer: Keypair) {
  let approve!: () => void;
  const approved = new Promise<void>((resolve) => (approve = resolve));
  const asked: string[] = [];
  await page.exposeFunction("mockFreighterSign", async (xdr: string, networkPassphrase: string) => {
    asked.push(xdr);
    await approved;
    const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
    tx.sign(payer);
    return tx.toEnvelope().toXDR("base64");
  });
  await page.addInitScript((publicKey: string) => {
    const w = window as unknown as { freighter: boolean; mockFreighterSign(xdr: string, passphrase: string): Promise<string> };
    w.freighter = true;
    window.addEventListener("message", async (event) => {
      const request = event.data as { source?: string; messageId?: number; type?: string; transactionXdr?: string; networkPassphrase?: string };
      if (event.source !== window || request?.source !== "FREIGHTER_EXTERNAL_MSG_REQUEST") return;
      let reply: Record<string, unknown> = {};
      if (request.type === "REQUEST_ACCESS" || request.type === "REQUEST_PUBLIC_KEY") reply = { publicKey };
      else if (request.type === "REQUEST_CONNECTION_STATUS") reply = { isConnected: true };
      else if (request.type === "SUBMIT_TRANSACTION") {
        reply = { signedTransaction: await w.mockFreighterSign(request.transactionXdr!, request.networkPassphrase!), signerAddress: publicKey };
      }
      // freighter-api matches responses on "messagedId" (sic).
      window.postMessage({ source: "FREIGHTER_EXTERNAL_MSG_RESPONSE", messagedId: request.messageId, ...reply }, window.location.origin);
    });
  }, payer.publicKey());
  return { approve, asked };
}
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("paying on the checkout page", () => {
  it("pays with the sandbox test wallet and shows Paid live, with the ledger transaction", async () => {
    const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "25", description: "Sandbox order" } });
    expect(res.status).toBe(201);
    const page = await browser.context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.headers().authorization ?? ""));
    await page.goto(`${t.url}${new URL(res.body.checkout_url).pathname}`);
    await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));

    await page.getByRole("button", { name: "Pay with a test wallet" }).click();
    await page.getByRole("heading", { name: "Paid" }).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);

    const payment = (await t.api("GET", `/payments/${res.body.id}`, { key: merchant.sandboxKey })).body;
    expect(payment).toMatchObject({ status: "completed", tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const receipt = page.getByRole("link", { name: payment.tx_hash });
    expect(await receipt.getAttribute("href")).toBe(`https://stellar.expert/explorer/testnet/tx/${payment.tx_hash}`);
    expect(requests.every((authorization) => authorization === "")).toBe(true);
    await page.screenshot({ path: screenshotPath("checkout-test-wallet-paid"), fullPage: true });
    await page.close();
  });

  it("pays from a browser wallet in another asset, showing the path-finding quote before signing", async () => {
    const usdcRef = { asset_code: "USDC", issuer_address: usdc.getIssuer() };
    const res = await t.api("POST", "/payments", {
      key: merchant.sandboxKey,
      body: { amount: "10", settlement_asset: usdcRef, allowed_assets: [usdcRef, { asset_code: "XLM", issuer_address: null }] },
    });
    expect(res.status).toBe(201);
    const payer = Keypair.random();
    await network.fund(payer.publicKey());
    const page = await browser.context.newPage();
    const wallet = await mockFreighter(page, payer);
    await page.goto(`${t.url}${new URL(res.body.checkout_url).pathname}`);

    // The price in each asset before choosing: 10 USDC, or about 40 XLM at 4 XLM per USDC.
    await page.getByTestId("quotes").waitFor();
    expect(await page.getByTestId("quotes").getByRole("listitem").allTextContents()).toEqual(["10 USDC", "≈ 40 XLM"]);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("checkout-quotes-390px"), fullPage: true });
    await page.getByLabel("Pay with").selectOption("XLM");
    await page.getByRole("button", { name: "Pay with Freighter" }).click();
    // 10 USDC at 4 XLM each: 40 XLM quoted, at most 40.4 XLM with the slippage allowance.
    await page.getByText("You pay at most 40.4 XLM.").waitFor({ timeout: 15_000 });
    wallet.approve();
    await page.getByRole("heading", { name: "Paid" }).waitFor({ timeout: 20_000 });

    const asked = TransactionBuilder.fromXDR(wallet.asked[0]!, Networks.TESTNET) as import("@stellar/stellar-sdk").Transaction;
    expect(asked.source).toBe(payer.publicKey());
    expect(asked.operations[0]).toMatchObject({ type: "pathPaymentStrictReceive", sendMax: "40.4000000", destAmount: "10.0000000" });
    const payment = (await t.api("GET", `/payments/${res.body.id}`, { key: merchant.sandboxKey })).body;
    expect(payment).toMatchObject({ status: "completed", paid_asset: { asset_code: "XLM", issuer_address: null } });
    await page.getByText("Paid with XLM.").waitFor();
    await page.close();
  });
});
