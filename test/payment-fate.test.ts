// Issue 13, finding 2 ("no stranger decides a payment's fate") and the test-wallet double payment of
// finding 5, with real signed transactions on the simulated network. submitCheckoutTransaction takes
// only the transaction prepareCheckoutTransaction builds; a payer's own failed attempt records
// `failed`, which is not final until the payment expires; the test wallet pays a payment once.
import { Asset, Keypair, Memo, Networks, Operation, TransactionBuilder, type xdr } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { toStroops } from "../src/shared/money.ts";
import { type Wallet, fundedPayer, payOp, signedTransaction, startLedgerWorld, submit, waitFor } from "./support/ledger.ts";
import type { Merchant, TestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let network: SimulatedNetwork;
let wallet: Wallet;
let usdc: Asset;

beforeAll(async () => {
  ({ t, merchant, network, wallet, usdc } = await startLedgerWorld("4"));
});
afterAll(() => t.close());

const usdcRef = () => ({ asset_code: "USDC", issuer_address: usdc.getIssuer() });

async function createPayment(body: Record<string, unknown>) {
  const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; amount: string; payment_instructions: { muxed_destination: string; memo: string } };
}
const readPayment = async (id: string) => (await t.api("GET", `/payments/${id}`, { key: merchant.sandboxKey })).body;
const eventTypes = async (id: string) =>
  (await t.database.db.event.findMany({ where: { resourceId: id }, orderBy: { seq: "asc" } })).map((e) => e.type);

// No API key: anyone who knows the payment id may call these.
const prepare = async (paymentId: string, payerAddress: string, payAsset?: { assetCode: string; issuerAddress?: string | null }) =>
  t.graphql(
    `mutation ($paymentId: ID!, $payerAddress: String!, $payAsset: AssetRefInput) {
      prepareCheckoutTransaction(paymentId: $paymentId, payerAddress: $payerAddress, payAsset: $payAsset) { xdr } }`,
    { paymentId, payerAddress, payAsset },
  );
const submitSigned = (paymentId: string, signedXdr: string) =>
  t.graphql(
    `mutation ($paymentId: ID!, $signedXdr: String!) {
      submitCheckoutTransaction(paymentId: $paymentId, signedXdr: $signedXdr) { txHash successful resultCodes paymentStatus } }`,
    { paymentId, signedXdr },
  );
const checkoutView = async (id: string) =>
  (await t.graphql(`query ($id: ID!) { checkout(id: $id) { state failureReason instructions { memo } } }`, { id })).body.data.checkout;

/** prepareCheckoutTransaction's answer, signed by the payer as a wallet would. */
async function preparedAndSigned(paymentId: string, payer: Keypair, payAsset?: { assetCode: string; issuerAddress?: string | null }) {
  const prepared = await prepare(paymentId, payer.publicKey(), payAsset);
  expect(prepared.body.errors).toBeUndefined();
  const tx = TransactionBuilder.fromXDR(prepared.body.data.prepareCheckoutTransaction.xdr, Networks.TESTNET);
  tx.sign(payer);
  return tx.toEnvelope().toXDR("base64");
}

/** A transaction with prepare's fee and time bounds unless `options` say otherwise, signed by `signers`. */
async function crafted(
  source: Keypair,
  operations: xdr.Operation[],
  options: { fee?: string; maxTime?: number; memo?: Memo; signers?: Keypair[] } = {},
): Promise<string> {
  const account = await wallet.horizon.loadAccount(source.publicKey());
  const nowSeconds = Math.floor(t.clock.now().getTime() / 1000);
  const builder = new TransactionBuilder(account, {
    fee: options.fee ?? "5000",
    networkPassphrase: Networks.TESTNET,
    timebounds: { minTime: 0, maxTime: options.maxTime ?? nowSeconds + 600 },
  });
  for (const op of operations) builder.addOperation(op);
  if (options.memo) builder.addMemo(options.memo);
  const tx = builder.build();
  tx.sign(...(options.signers ?? [source]));
  return tx.toEnvelope().toXDR("base64");
}

/** Submits `signedXdr` and expects a refusal with `message` that changed nothing: no ledger, no status, no event. */
async function expectRefused(paymentId: string, payer: Keypair, signedXdr: string, message: string) {
  const sequence = network.sequence(payer.publicKey());
  const answer = await submitSigned(paymentId, signedXdr);
  expect(answer.body.errors?.[0]).toMatchObject({ message, extensions: { code: "BAD_REQUEST" } });
  expect(network.sequence(payer.publicKey())).toBe(sequence);
  expect((await readPayment(paymentId)).status).toBe("pending");
  expect(await eventTypes(paymentId)).toEqual(["payment.created"]);
}

describe("finding 2: submitCheckoutTransaction takes only the transaction prepare builds", () => {
  it("finding 2: a correct payment plus an underfunded second operation is refused before the ledger, and the payment stays pending", async () => {
    const payment = await createPayment({ amount: "3" });
    const attacker = await fundedPayer(wallet);
    const pays = payOp(payment.payment_instructions.muxed_destination, "3");
    const underfunded = payOp(Keypair.random().publicKey(), "5", usdc); // no USDC at all: op_underfunded on the ledger
    await expectRefused(
      payment.id,
      attacker,
      await crafted(attacker, [pays, underfunded]),
      "signedXdr must be the transaction prepareCheckoutTransaction built: it must have exactly one operation, not 2",
    );

    // The honest payer pays afterwards, and the payment completes as if nothing had happened.
    const payer = await fundedPayer(wallet);
    const answer = await submitSigned(payment.id, await preparedAndSigned(payment.id, payer));
    expect(answer.body.data.submitCheckoutTransaction).toMatchObject({ successful: true });
    await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.completed"]);
  });

  it("finding 2: refuses other shapes: another destination, an extra operation, another source, another asset, a fee bump, a foreign memo, no time bound, a huge fee", async () => {
    const payment = await createPayment({ amount: "2" });
    const other = await createPayment({ amount: "2" });
    const payer = await fundedPayer(wallet);
    const stranger = await fundedPayer(wallet);
    const to = payment.payment_instructions.muxed_destination;
    const prepared = "signedXdr must be the transaction prepareCheckoutTransaction built: ";

    await expectRefused(payment.id, payer, await crafted(payer, [payOp(other.payment_instructions.muxed_destination, "2")]),
      "signedXdr does not pay this payment: memo or muxed id is not this payment's");
    await expectRefused(payment.id, payer, await crafted(payer, [payOp(Keypair.random().publicKey(), "2")]),
      "signedXdr does not pay this payment: destination is not the settlement wallet");
    await expectRefused(payment.id, payer, await crafted(payer, [payOp(to, "2"), Operation.manageData({ name: "x", value: "y" })]),
      `${prepared}it must have exactly one operation, not 2`);
    await expectRefused(payment.id, payer, await crafted(payer, [Operation.payment({ destination: to, asset: Asset.native(), amount: "2", source: stranger.publicKey() })], { signers: [payer, stranger] }),
      `${prepared}the operation's source must be the transaction's source`);
    network.setTrustline(payer.publicKey(), usdc, { balance: "10" });
    await expectRefused(payment.id, payer, await crafted(payer, [payOp(to, "2", usdc)]), "signedXdr does not pay this payment: asset is not XLM");
    await expectRefused(payment.id, payer, await crafted(payer, [Operation.manageData({ name: "x", value: "y" })]),
      `${prepared}its operation must be a payment or a strict-receive path payment`);
    await expectRefused(payment.id, payer, await crafted(payer, [payOp(to, "2")], { memo: Memo.text("hello") }),
      `${prepared}its memo must be none or this payment's id memo`);
    await expectRefused(payment.id, payer, await crafted(payer, [payOp(to, "2")], { maxTime: 0 }), `${prepared}it must expire within 15 minutes`);
    await expectRefused(payment.id, payer, await crafted(payer, [payOp(to, "2")], { fee: "100000000" }), `${prepared}its fee must be at most 10000 stroops`);

    // A stranger's fee bump around the payer's own, correct transaction.
    const inner = TransactionBuilder.fromXDR(await preparedAndSigned(payment.id, payer), Networks.TESTNET);
    const bump = TransactionBuilder.buildFeeBumpTransaction(stranger, "1000000", inner as never, Networks.TESTNET);
    bump.sign(stranger);
    await expectRefused(payment.id, payer, bump.toEnvelope().toXDR("base64"), `${prepared}not a fee bump`);

    // The settlement wallet with this payment's id memo is this payment's destination too.
    const byMemo = await crafted(payer, [payOp(merchant.wallet.publicKey(), "2")], { memo: Memo.id(payment.payment_instructions.memo) });
    expect((await submitSigned(payment.id, byMemo)).body.data.submitCheckoutTransaction).toMatchObject({ successful: true });
    await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
  });
});

describe("finding 2: a payer's own failed attempt is not final until the payment expires", () => {
  it("finding 2: the payer's underfunded attempt fails the payment (payment.failed); the checkout offers paying again, and a later payment completes it (payment.completed)", async () => {
    const payment = await createPayment({ amount: "5", settlement_asset: usdcRef() });
    const payer = await fundedPayer(wallet);
    network.setTrustline(payer.publicKey(), usdc, { balance: "1" }); // too little
    const usdcIn = { assetCode: "USDC", issuerAddress: usdc.getIssuer() };
    const attempt = await submitSigned(payment.id, await preparedAndSigned(payment.id, payer, usdcIn));
    expect(attempt.body.data.submitCheckoutTransaction).toMatchObject({ successful: false, resultCodes: ["tx_failed", "op_underfunded"], paymentStatus: "failed" });
    expect(await readPayment(payment.id)).toMatchObject({ status: "failed", failure_reason: "tx_failed, op_underfunded" });
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.failed"]);
    expect(await checkoutView(payment.id)).toEqual({
      state: "failed",
      failureReason: "tx_failed, op_underfunded",
      instructions: { memo: payment.payment_instructions.memo },
    });

    // A second failed attempt (no trustline at all) updates the reason, without a second payment.failed.
    const another = await fundedPayer(wallet);
    const again = await submitSigned(payment.id, await preparedAndSigned(payment.id, another, usdcIn));
    expect(again.body.data.submitCheckoutTransaction).toMatchObject({ successful: false, resultCodes: ["tx_failed", "op_src_no_trust"], paymentStatus: "failed" });
    expect((await readPayment(payment.id)).failure_reason).toBe("tx_failed, op_src_no_trust");
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.failed"]);

    // The payer tops up and pays again through the checkout: prepare and submit take the failed payment.
    network.setTrustline(payer.publicKey(), usdc, { balance: "10" });
    const paid = await submitSigned(payment.id, await preparedAndSigned(payment.id, payer, usdcIn));
    expect(paid.body.data.submitCheckoutTransaction).toMatchObject({ successful: true, paymentStatus: "failed" });
    const done = await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
    expect(done).toMatchObject({ tx_hash: paid.body.data.submitCheckoutTransaction.txHash, late: false, failure_reason: null, amount_received: "5.0000000" });
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.failed", "payment.completed"]);
    expect((await checkoutView(payment.id)).state).toBe("paid");
  });

  it("finding 2: a failed payment is completed by a matching payment made outside the checkout, straight on the ledger", async () => {
    const payment = await createPayment({ amount: "4", settlement_asset: usdcRef() });
    const payer = await fundedPayer(wallet); // no trustline: op_src_no_trust
    const attempt = await submitSigned(payment.id, await preparedAndSigned(payment.id, payer, { assetCode: "USDC", issuerAddress: usdc.getIssuer() }));
    expect(attempt.body.data.submitCheckoutTransaction.paymentStatus).toBe("failed");

    const mobile = await fundedPayer(wallet);
    network.setTrustline(mobile.publicKey(), usdc, { balance: "4" });
    const sent = await submit(wallet, await signedTransaction(wallet, mobile, [payOp(payment.payment_instructions.muxed_destination, "4", usdc)]));
    expect(sent.hash).toBeTruthy();
    const done = await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
    expect(done).toMatchObject({ tx_hash: sent.hash, payer_address: mobile.publicKey(), late: false });
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.failed", "payment.completed"]);
  });

  it("finding 2: a failed payment expires at expires_at (payment.expired, reason kept, checkout closed); money arriving later completes it late", async () => {
    const payment = await createPayment({ amount: "2", settlement_asset: usdcRef(), expires_in_minutes: 5 });
    const payer = await fundedPayer(wallet);
    const attempt = await submitSigned(payment.id, await preparedAndSigned(payment.id, payer, { assetCode: "USDC", issuerAddress: usdc.getIssuer() }));
    expect(attempt.body.data.submitCheckoutTransaction.paymentStatus).toBe("failed");

    t.clock.advance(5 * 60_000);
    // Past expires_at the checkout no longer takes payment, even before the sweeper has run.
    expect((await prepare(payment.id, payer.publicKey())).body.errors[0]).toMatchObject({ message: "Payment has expired", extensions: { code: "CONFLICT" } });
    await t.app.ledger.sweeper.runOnce();
    expect(await readPayment(payment.id)).toMatchObject({ status: "expired", failure_reason: "tx_failed, op_src_no_trust" });
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.failed", "payment.expired"]);
    expect(await checkoutView(payment.id)).toMatchObject({ state: "expired", instructions: null });

    // Money that reaches the merchant anyway is not dropped: the payment completes, late.
    network.setTrustline(payer.publicKey(), usdc, { balance: "2" });
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "2", usdc)]));
    const done = await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
    expect(done).toMatchObject({ tx_hash: sent.hash, late: true, failure_reason: null });
    expect(await eventTypes(payment.id)).toEqual(["payment.created", "payment.failed", "payment.expired", "payment.completed"]);
  });
});

describe("finding 2: what a failed payment's checkout session and invoice do", () => {
  it("finding 2: the session stays open while its payment failed; voiding the invoice expires the failed payment and its session", async () => {
    // More than a friendbot-funded payer holds: the attempt fails with op_underfunded.
    const invoice = (await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { amount: "50000" } })).body;
    const finalized = (await t.api("POST", `/invoices/${invoice.id}/finalize`, { key: merchant.sandboxKey })).body.invoice;
    const paymentId = finalized.payment_intent_id as string;
    const payer = await fundedPayer(wallet);
    const attempt = await submitSigned(paymentId, await preparedAndSigned(paymentId, payer));
    expect(attempt.body.data.submitCheckoutTransaction).toMatchObject({ resultCodes: ["tx_failed", "op_underfunded"], paymentStatus: "failed" });
    const session = await t.database.db.checkoutSession.findUniqueOrThrow({ where: { paymentId } });
    expect(session.status).toBe("open");
    expect((await checkoutView(invoice.id)).state).toBe("failed");

    expect((await t.api("POST", `/invoices/${invoice.id}/void`, { key: merchant.sandboxKey })).status).toBe(200);
    expect((await readPayment(paymentId)).status).toBe("expired");
    expect((await t.database.db.checkoutSession.findUniqueOrThrow({ where: { id: session.id } })).status).toBe("expired");
    expect(await eventTypes(paymentId)).toEqual(["payment.created", "payment.failed", "payment.expired"]);
    expect((await prepare(paymentId, payer.publicKey())).body.errors[0].message).toBe("Payment has expired");
  });
});

describe("finding 5: payWithTestWallet pays a payment once", () => {
  const payWithTestWallet = (paymentId: string) =>
    t.graphql(`mutation ($id: ID!) { payWithTestWallet(paymentId: $id) { txHash successful } }`, { id: paymentId });

  it("finding 5: 30 concurrent anonymous payWithTestWallet calls pay one 7 XLM payment once", async () => {
    const payment = await createPayment({ amount: "7" });
    const before = network.balance(merchant.wallet.publicKey());
    const answers = await Promise.all(Array.from({ length: 30 }, () => payWithTestWallet(payment.id)));
    const submissions = answers.map((a) => a.body.data?.payWithTestWallet).filter(Boolean);
    const done = await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
    // Let any second payment land on the ledger before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await t.database.db.ledgerPayment.count({ where: { paymentId: payment.id } })).toBe(1);
    expect(toStroops(network.balance(merchant.wallet.publicKey())!) - toStroops(before!)).toBe(70_000_000n);
    expect(new Set(submissions.map((s) => s.txHash))).toEqual(new Set([done.tx_hash]));
    expect(done.amount_received).toBe("7.0000000");
    // Calls after the ledger completed the payment are refused; every other answer is the one payment.
    for (const answer of answers.filter((a) => a.body.errors)) expect(answer.body.errors[0].message).toBe("Payment is already completed");

    const afterwards = await payWithTestWallet(payment.id);
    expect(afterwards.body.errors[0]).toMatchObject({ message: "Payment is already completed", extensions: { code: "CONFLICT" } });
  });
});
