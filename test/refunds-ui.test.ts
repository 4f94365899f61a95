// Refunds in a real Chromium on the simulated network (#26): a merchant presses Refund on a
// completed payment in the dashboard and signs it through a Freighter stand-in that holds the
// settlement wallet's key (after being told plainly that Freighter held another account), and the
// refund turns Succeeded without a reload; the Unmatched payments desk applies one deposit to a
// payment picked and refunds another, which, signed and sent elsewhere, the open screen sees succeed;
// a payer whose exchange account needs a memo says where the money goes on the claim page (/r/re_…,
// axe-clean at 1280 and 390 px, saying who refunds on which network), which follows the refund live
// until the money is there, while the merchant's open refund shows the claim at once on its timeline.
import { Asset, Keypair, Memo, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/modules/users/users.service.ts";
import { type Browser, accessibilityViolations, launchBrowser, screenshotPath } from "./support/browser.ts";
import { type LedgerWorld, fundedPayer, payOp, signedTransaction, startLedgerWorld, submit, waitFor } from "./support/ledger.ts";

let world: LedgerWorld;
let browser: Browser;
const owner = { email: "refunds-owner@merchant.test", password: "correct-horse-refunds" };

beforeAll(async () => {
  [world, browser] = await Promise.all([startLedgerWorld("5"), launchBrowser()]);
  await createUser(world.t.deps, { organizationId: world.merchant.organizationId, role: "owner", ...owner });
});
afterAll(async () => {
  await browser?.close();
  await world?.t.close();
});

const api = (method: string, path: string, body?: unknown) => world.t.api(method, path, { key: world.merchant.sandboxKey, ...(body !== undefined && { body }) });
const readRefund = async (id: string) => (await api("GET", `/refunds/${id}`)).body;

/** A payment of `amount` that `payer` paid `paid` of, in XLM or USDC, once the service counted it. */
async function paidPayment(amount: string, paid: string, payer: Keypair, asset: "XLM" | "USDC" = "XLM") {
  const usdc = { asset_code: "USDC", issuer_address: world.usdc.getIssuer() };
  const created = (await api("POST", "/payments", { amount, ...(asset === "USDC" && { settlement_asset: usdc }) })).body;
  const { destination, memo } = created.payment_instructions;
  const op = payOp(destination, paid, asset === "USDC" ? world.usdc : Asset.native());
  expect((await submit(world.wallet, await signedTransaction(world.wallet, payer, [op], { memo: Memo.id(memo) }))).hash).toBeDefined();
  return waitFor(async () => (await api("GET", `/payments/${created.id}`)).body, (p) => p.status === "completed");
}

/**
 * Stands in for the Freighter extension (as the checkout's tests do): answers freighter-api's window
 * messages with the account it holds now (`hold` switches it, as a person switching accounts) and
 * signs with that account's key in this process.
 */
async function mockFreighter(page: Page, holding: Keypair) {
  let held = holding;
  const asked: string[] = [];
  await page.exposeFunction("mockFreighterAccount", () => held.publicKey());
  await page.exposeFunction("mockFreighterSign", (xdr: string, networkPassphrase: string) => {
    asked.push(xdr);
    const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
    tx.sign(held);
    return tx.toEnvelope().toXDR("base64");
  });
  await page.addInitScript(() => {
    const w = window as unknown as { freighter: boolean; mockFreighterAccount(): Promise<string>; mockFreighterSign(xdr: string, passphrase: string): Promise<string> };
    w.freighter = true;
    window.addEventListener("message", async (event) => {
      const request = event.data as { source?: string; messageId?: number; type?: string; transactionXdr?: string; networkPassphrase?: string };
      if (event.source !== window || request?.source !== "FREIGHTER_EXTERNAL_MSG_REQUEST") return;
      const publicKey = await w.mockFreighterAccount();
      let reply: Record<string, unknown> = {};
      if (request.type === "REQUEST_ACCESS" || request.type === "REQUEST_PUBLIC_KEY") reply = { publicKey };
      else if (request.type === "REQUEST_CONNECTION_STATUS") reply = { isConnected: true };
      else if (request.type === "SUBMIT_TRANSACTION") reply = { signedTransaction: await w.mockFreighterSign(request.transactionXdr!, request.networkPassphrase!), signerAddress: publicKey };
      // freighter-api matches responses on "messagedId" (sic).
      window.postMessage({ source: "FREIGHTER_EXTERNAL_MSG_RESPONSE", messagedId: request.messageId, ...reply }, window.location.origin);
    });
  });
  return { hold: (key: Keypair) => (held = key), asked };
}

/** Signs `who` (the owner) in afresh on `page` (the tab of a test before may have left its session). */
async function signIn(page: Page, who = owner) {
  await browser.context.clearCookies();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${world.t.url}/dashboard`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home" }).waitFor();
}

describe("refunding from the dashboard", () => {
  it("refunds a completed payment signed in Freighter, and shows it succeeded without a reload", { timeout: 90_000 }, async () => {
    const payer = await fundedPayer(world.wallet);
    const payment = await paidPayment("10", "12", payer);
    const before = world.network.balance(payer.publicKey());
    const page = await browser.context.newPage();
    const freighter = await mockFreighter(page, Keypair.random());
    await signIn(page);
    await page.getByRole("link", { name: "Payments", exact: true }).click();
    await page.getByRole("link", { name: payment.id }).click();

    // Overpaid by 2: "Refund the excess" comes prefilled with the excess, "Refund" with all 12.
    await page.getByRole("button", { name: "Refund the excess" }).click();
    const excess = page.getByRole("form", { name: "Refund the excess" });
    expect(await excess.getByLabel("Amount (XLM)").inputValue()).toBe("2");
    await excess.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    const form = page.getByRole("form", { name: "Refund" });
    expect(await form.getByLabel("Amount (XLM)").inputValue()).toBe("12");
    await form.getByLabel("Reason").fill("Order returned");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refund-form"), fullPage: true });
    await form.getByRole("button", { name: "Create refund" }).click();

    await page.getByRole("heading", { name: /^Refund re_/ }).waitFor();
    const refundId = (await page.getByRole("heading", { name: /^Refund re_/ }).textContent())!.replace("Refund ", "");
    await page.getByRole("img", { name: "QR code of the refund transaction for a phone wallet" }).waitFor();
    expect(await page.getByLabel("Transaction to sign").inputValue()).toMatch(/^AAAA/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refund-sign"), fullPage: true });

    // Pasted back signed by a key other than the settlement wallet's: refused, said, nothing sent.
    const foreign = TransactionBuilder.fromXDR(await page.getByLabel("Transaction to sign").inputValue(), Networks.TESTNET);
    foreign.sign(Keypair.random());
    await page.getByLabel("Signed transaction").fill(foreign.toEnvelope().toXDR("base64"));
    await page.getByRole("button", { name: "Send the signed transaction" }).click();
    await page.getByRole("alert").filter({ hasText: /signed_transaction_xdr/ }).waitFor();
    expect((await readRefund(refundId)).status).toBe("requires_signature");

    // Freighter holds another account: the page says so, and nothing is signed or sent.
    await page.getByRole("button", { name: "Sign with Freighter" }).click();
    await page.getByText(/^Freighter holds the account .*, not the settlement wallet .* that sends this refund\./).waitFor();
    expect(freighter.asked).toEqual([]);
    expect((await readRefund(refundId)).status).toBe("requires_signature");

    // The merchant switches to the settlement wallet: signed, sent, and the screen turns Succeeded.
    freighter.hold(world.merchant.wallet);
    await page.getByRole("button", { name: "Sign with Freighter" }).click();
    await page.locator(".facts").getByText("Succeeded").waitFor();
    expect(freighter.asked).toHaveLength(1);
    const refund = await readRefund(refundId);
    expect(refund).toMatchObject({ status: "succeeded", amount: "12.0000000", reason: "Order returned", destination_address: payer.publicKey() });
    // The ledger transaction: its hash (no public explorer shows the simulated network, so no link).
    await page.locator(".facts").getByText(refund.tx_hash).waitFor();
    expect(await page.getByRole("link", { name: refund.tx_hash }).count()).toBe(0);
    const gained = BigInt(world.network.balance(payer.publicKey())!.replace(".", "")) - BigInt(before!.replace(".", ""));
    expect(gained).toBe(120_000_000n);
    await page.screenshot({ path: screenshotPath("refund-succeeded"), fullPage: true });

    // Back on the payment: refunded in full, listed, and nothing left to refund.
    await page.getByRole("link", { name: payment.id }).click();
    await page.getByRole("region", { name: "Refunds" }).getByRole("link", { name: refundId }).waitFor();
    expect(await page.locator(".facts").getByText("12 XLM").count()).toBe(2);
    expect(await page.getByRole("button", { name: "Refund", exact: true }).count()).toBe(0);

    // The Refunds screen lists it, on a phone too, and its filter narrows the list.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Refunds", exact: true }).click();
    await page.getByRole("heading", { name: "Refunds", level: 1 }).waitFor();
    await page.getByRole("row").filter({ hasText: refundId }).getByText("Succeeded").waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refunds-list-390px"), fullPage: true });
    await page.getByRole("button", { name: "Filters" }).click();
    await page.getByLabel("Status").selectOption("requires_signature");
    await page.getByRole("row").filter({ hasText: refundId }).waitFor({ state: "detached" });
    await page.close();
  });
});

describe("who may move money", () => {
  it("shows a developer payments and refunds without Refund, signing or Cancel (the server refuses them anyway)", async () => {
    const payment = await paidPayment("4", "4", await fundedPayer(world.wallet));
    // Part of it: 3 XLM stays refundable, so an owner would see Refund.
    const refund = (await api("POST", "/refunds", { payment_id: payment.id, amount: "1" })).body;
    expect(refund.status).toBe("requires_signature");
    const developer = { email: "refunds-developer@merchant.test", password: "developer-refunds-1" };
    await createUser(world.t.deps, { organizationId: world.merchant.organizationId, role: "developer", ...developer });
    const page = await browser.context.newPage();
    await signIn(page, developer);
    await page.goto(`${world.t.url}/dashboard/refunds/${refund.id}`);
    await page.locator(".facts").getByText("Needs your signature").waitFor();
    expect(await page.getByRole("heading", { name: "Sign and send" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel refund" }).count()).toBe(0);
    await page.getByRole("link", { name: payment.id }).click();
    await page.getByRole("heading", { name: `Payment ${payment.id}` }).waitFor();
    await page.getByRole("region", { name: "Refunds" }).getByRole("link", { name: refund.id }).waitFor();
    expect(await page.getByRole("button", { name: /^Refund/ }).count()).toBe(0);
    await page.close();
  });
});

describe("the desk for unmatched payments", () => {
  /** Money to the settlement wallet with a memo no payment has; its row on the desk. */
  async function unmatched(amount: string) {
    const payer = await fundedPayer(world.wallet);
    const sent = await submit(world.wallet, await signedTransaction(world.wallet, payer, [payOp(world.merchant.wallet.publicKey(), amount)], { memo: Memo.text("my order") }));
    await waitFor(() => world.t.database.db.ledgerPayment.findFirst({ where: { txHash: sent.hash! } }), (row) => row !== null);
    return payer;
  }

  it("applies one to the payment picked, and refunds another, signed elsewhere, seen succeed live", async () => {
    // First the payment: the ledger is watched for the wallets that await money.
    const payment = (await api("POST", "/payments", { amount: "8", description: "Order 1001" })).body;
    const [first, second] = [await unmatched("8"), await unmatched("5")];
    const page = await browser.context.newPage();
    await signIn(page);
    await page.getByRole("link", { name: "Unmatched payments" }).click();

    await page.getByRole("button", { name: `Apply to a payment: 8 XLM from ${first.publicKey()}` }).click();
    const apply = page.getByRole("form", { name: "Apply to a payment" });
    await apply.getByLabel("Find a payment").fill(payment.id);
    await apply.getByLabel("Payment", { exact: true }).selectOption(payment.id);
    await apply.getByLabel("Reason").fill("Paid with the order number as memo");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("unmatched-apply"), fullPage: true });
    await apply.getByRole("button", { name: "Apply" }).click();
    await page.getByText(`Applied to ${payment.id}, now completed.`).waitFor();
    expect((await api("GET", `/payments/${payment.id}`)).body).toMatchObject({ status: "completed", amount_received: "8.0000000" });
    await page.getByRole("button", { name: `Apply to a payment: 8 XLM from ${first.publicKey()}` }).waitFor({ state: "detached" });

    await page.getByRole("button", { name: `Refund 5 XLM to ${second.publicKey()}` }).click();
    const refund = page.getByRole("form", { name: "Refund an unmatched payment" });
    expect(await refund.getByLabel("Amount (XLM)").inputValue()).toBe("5");
    await refund.getByRole("button", { name: "Create refund" }).click();
    await page.getByRole("heading", { name: /^Refund re_/ }).waitFor();
    await page.locator(".facts").getByText("Needs your signature").waitFor();
    await page.locator(".facts").getByText(second.publicKey()).waitFor();

    // Signed and sent elsewhere (a phone wallet sends it to the network itself): the open screen
    // turns Succeeded by itself once the ledger has it.
    const refundId = (await page.getByRole("heading", { name: /^Refund re_/ }).textContent())!.replace("Refund ", "");
    const tx = TransactionBuilder.fromXDR((await readRefund(refundId)).transaction_xdr, Networks.TESTNET);
    tx.sign(world.merchant.wallet);
    expect((await submit(world.wallet, tx.toEnvelope().toXDR("base64"))).hash).toBeDefined();
    await page.locator(".facts").getByText("Succeeded").waitFor();
    expect(await readRefund(refundId)).toMatchObject({ status: "succeeded", destination_address: second.publicKey() });
    // The desk says where that deposit went, and offers nothing more for it.
    await page.getByRole("link", { name: "Unmatched payments" }).click();
    await page.getByRole("link", { name: `Sent back by ${refundId}` }).waitFor();
    expect(await page.getByRole("button", { name: `Refund 5 XLM to ${second.publicKey()}` }).count()).toBe(0);
    await page.close();
  });
});

describe("the payer's claim page", () => {
  it("takes an exchange address and memo at laptop and phone width, then follows the refund live to the money", { timeout: 90_000 }, async () => {
    const exchange = await fundedPayer(world.wallet);
    const payment = await paidPayment("7", "7", exchange);
    await submit(world.wallet, await signedTransaction(world.wallet, exchange, [Operation.manageData({ name: "config.memo_required", value: "1" })]));
    const created = (await api("POST", "/refunds", { payment_id: payment.id })).body;
    expect(created).toMatchObject({ status: "pending_claim", claim_url: expect.stringMatching(/\/r\/re_/) });
    // The merchant has the refund open in the dashboard, waiting for the payer.
    const merchantPage = await browser.context.newPage();
    await signIn(merchantPage);
    await merchantPage.goto(`${world.t.url}/dashboard/refunds/${created.id}`);
    await merchantPage.getByRole("heading", { name: "Waiting for the payer" }).waitFor();
    const merchantName = (await world.t.graphql(`query ($id: ID!) { refundClaim(id: $id) { merchantName } }`, { id: created.id })).body.data.refundClaim.merchantName;
    expect(merchantName).toBeTruthy();

    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const response = await page.goto(`${world.t.url}${new URL(created.claim_url).pathname}`);
    expect(response!.status()).toBe(200);
    await page.getByRole("heading", { name: "Where should the money go?" }).waitFor();
    expect(await page.getByTestId("amount").textContent()).toBe("7 XLM");
    // Who is refunding, and on which network.
    await page.getByText(`Your refund from ${merchantName}`).waitFor();
    await page.getByText("A simulated Stellar network for testing").waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refund-claim-1280px"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await accessibilityViolations(page)).toEqual([]);

    // An address mistyped: said in words beside the field, and nothing claimed.
    const account = page.getByLabel("Stellar account");
    await account.fill("GABC");
    await page.getByRole("button", { name: "Send my refund here" }).click();
    await page.getByText("A Stellar account address: 56 characters starting with G").waitFor();
    expect(await account.getAttribute("aria-invalid")).toBe("true");
    // The exchange's account asks for a memo: said plainly beside the memo, and nothing claimed.
    await account.fill(exchange.publicKey());
    await page.getByRole("button", { name: "Send my refund here" }).click();
    await page.getByText("This account asks for a memo on every payment it receives").waitFor();
    expect(await account.getAttribute("aria-invalid")).toBeNull();
    expect(await page.getByLabel("Memo (if your exchange or wallet gave you one)").getAttribute("aria-invalid")).toBe("true");
    expect((await readRefund(created.id)).status).toBe("pending_claim");

    await page.getByLabel("Memo (if your exchange or wallet gave you one)").fill("4242");
    await page.getByLabel("Memo type").selectOption("id");
    await page.getByRole("button", { name: "Send my refund here" }).click();
    await page.getByRole("heading", { name: "On its way" }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refund-claim-390px"), fullPage: true });

    // The merchant's open screen shows the claim at once, without a reload, with the step on its timeline.
    const timeline = merchantPage.getByRole("list", { name: "Timeline" });
    await timeline.getByRole("listitem").filter({ hasText: "Claimed by the payer" }).filter({ hasText: `${exchange.publicKey()} (memo id 4242)` }).waitFor({ timeout: 3000 });
    await merchantPage.locator(".facts").getByText("Needs your signature").waitFor();
    await merchantPage.locator(".facts").getByText(exchange.publicKey()).waitFor();
    expect(await merchantPage.getByRole("heading", { name: "Waiting for the payer" }).count()).toBe(0);
    expect(await accessibilityViolations(merchantPage)).toEqual([]);
    await merchantPage.screenshot({ path: screenshotPath("refund-claimed-dashboard-1280px"), fullPage: true });

    // The merchant signs and sends it; the page turns Refunded by itself, with the transaction.
    const ready = await readRefund(created.id);
    expect(ready).toMatchObject({ status: "requires_signature", destination_address: exchange.publicKey(), destination_memo: "4242", destination_memo_type: "id" });
    const tx = TransactionBuilder.fromXDR(ready.transaction_xdr, Networks.TESTNET);
    tx.sign(world.merchant.wallet);
    const sent = await api("POST", `/refunds/${created.id}/submit`, { signed_transaction_xdr: tx.toEnvelope().toXDR("base64") });
    expect(sent.body.status).toBe("succeeded");
    await page.getByRole("heading", { name: "Refunded" }).waitFor();
    expect(await page.getByTestId("tx-hash").textContent()).toBe(sent.body.tx_hash);
    // No public explorer shows the simulated network: the hash, and no link.
    expect(await page.getByRole("link", { name: sent.body.tx_hash }).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refund-claim-refunded-390px"), fullPage: true });
    await page.close();

    // The dashboard's timeline has every step, in order, and reads on a phone.
    await timeline.getByRole("listitem").filter({ hasText: "Succeeded: the money is back" }).waitFor();
    const steps = await timeline.locator("li strong").allTextContents();
    expect(steps).toEqual(["Created", "Claimed by the payer", "Transaction ready to sign", "Sent to the network", "Succeeded: the money is back"]);
    await merchantPage.setViewportSize({ width: 390, height: 844 });
    expect(await accessibilityViolations(merchantPage)).toEqual([]);
    await merchantPage.screenshot({ path: screenshotPath("refund-timeline-390px"), fullPage: true });
    await merchantPage.close();
  });

  it("says how to claim a claimable balance when the account cannot hold the asset, and 404s an unknown refund", async () => {
    const payer = await fundedPayer(world.wallet);
    world.network.setTrustline(payer.publicKey(), world.usdc, { balance: "100" });
    const payment = await paidPayment("3", "3", payer, "USDC");
    const friend = await fundedPayer(world.wallet);
    const refund = (await api("POST", "/refunds", { payment_id: payment.id, destination: { address: friend.publicKey() } })).body;
    expect(refund.status).toBe("requires_signature");
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${world.t.url}/r/${refund.id}`);
    await page.getByRole("heading", { name: "This account cannot receive USDC yet" }).waitFor();
    await page.getByText("the refund is sent as a claimable balance").waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("refund-claim-claimable-390px"), fullPage: true });

    const missing = await page.goto(`${world.t.url}/r/re_doesnotexist`);
    expect(missing!.status()).toBe(404);
    await page.getByRole("heading", { name: "Refund not found" }).waitFor();
    await page.close();
  });
});
