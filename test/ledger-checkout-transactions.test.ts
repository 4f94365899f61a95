// The checkout's public mutations on the simulated network: prepare an unsigned transaction, sign it
// as the payer's wallet would, submit it; a failing submit marks the payment failed.
import { Asset, Keypair, Networks, TransactionBuilder } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { type Wallet, fundedPayer, payOp, signedTransaction, startLedgerWorld, waitFor } from "./support/ledger.ts";
import type { Merchant, TestApp } from "./support/test-app.ts";
import { enableAsset } from "../src/modules/organizations/organizations.service.ts";

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
  return res.body;
}
const readPayment = async (id: string) => (await t.api("GET", `/payments/${id}`, { key: merchant.sandboxKey })).body;

// No API key: the checkout page calls these with the payment id only.
const prepare = (paymentId: string, payerAddress: string, payAsset?: { assetCode: string; issuerAddress?: string | null }) =>
  t.graphql(
    `mutation ($paymentId: ID!, $payerAddress: String!, $payAsset: AssetRefInput) {
      prepareCheckoutTransaction(paymentId: $paymentId, payerAddress: $payerAddress, payAsset: $payAsset) {
        xdr networkPassphrase amount sendMax payAsset { assetCode issuerAddress } } }`,
    { paymentId, payerAddress, payAsset },
  );
const submitSigned = (paymentId: string, signedXdr: string) =>
  t.graphql(
    `mutation ($paymentId: ID!, $signedXdr: String!) {
      submitCheckoutTransaction(paymentId: $paymentId, signedXdr: $signedXdr) { txHash successful resultCodes paymentStatus } }`,
    { paymentId, signedXdr },
  );

function sign(xdr: string, payer: Keypair, networkPassphrase = Networks.TESTNET) {
  const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
  tx.sign(payer);
  return tx.toEnvelope().toXDR("base64");
}

describe("prepareCheckoutTransaction + submitCheckoutTransaction", () => {
  it("pays exactly the amount to the muxed destination, and the payment completes with that transaction", async () => {
    const payment = await createPayment({ amount: "7.25" });
    const payer = await fundedPayer(wallet);
    const prepared = await prepare(payment.id, payer.publicKey());
    expect(prepared.body.errors).toBeUndefined();
    const p = prepared.body.data.prepareCheckoutTransaction;
    expect(p).toMatchObject({ networkPassphrase: Networks.TESTNET, amount: "7.2500000", sendMax: "7.2500000" });
    const tx = TransactionBuilder.fromXDR(p.xdr, Networks.TESTNET) as any;
    expect(tx.signatures).toHaveLength(0);
    expect(tx.operations).toMatchObject([{ type: "payment", destination: payment.payment_instructions.muxed_destination, amount: "7.2500000" }]);

    const submitted = await submitSigned(payment.id, sign(p.xdr, payer));
    expect(submitted.body.errors).toBeUndefined();
    const s = submitted.body.data.submitCheckoutTransaction;
    expect(s).toMatchObject({ successful: true, resultCodes: [] });
    const done = await waitFor(() => readPayment(payment.id), (r) => r.status === "completed");
    expect(done).toMatchObject({ tx_hash: s.txHash, payer_address: payer.publicKey() });
  });

  it("builds a strict-receive path payment with a 1% slippage bound when paying with another allowed asset", async () => {
    const payment = await createPayment({ amount: "10", settlement_asset: usdcRef() });
    const payer = await fundedPayer(wallet);
    const prepared = (await prepare(payment.id, payer.publicKey(), { assetCode: "XLM" })).body.data.prepareCheckoutTransaction;
    // 10 USDC at 4 XLM each: 40 XLM quoted, at most 40.4 sent.
    expect(prepared).toMatchObject({ amount: "10.0000000", sendMax: "40.4000000", payAsset: { assetCode: "XLM", issuerAddress: null } });
    const op = (TransactionBuilder.fromXDR(prepared.xdr, Networks.TESTNET) as any).operations[0];
    expect(op).toMatchObject({ type: "pathPaymentStrictReceive", destAmount: "10.0000000", sendMax: "40.4000000" });
    const s = (await submitSigned(payment.id, sign(prepared.xdr, payer))).body.data.submitCheckoutTransaction;
    const done = await waitFor(() => readPayment(payment.id), (r) => r.status === "completed");
    expect(done).toMatchObject({ tx_hash: s.txHash, paid_asset: { asset_code: "XLM", issuer_address: null } });
  });

  it("refuses a pay asset outside allowed_assets", async () => {
    const payment = await createPayment({ amount: "1", allowed_assets: [{ asset_code: "XLM" }] });
    const other = network.createAsset("EURC", Keypair.random());
    const payer = await fundedPayer(wallet);
    const res = await prepare(payment.id, payer.publicKey(), { assetCode: "EURC", issuerAddress: other.getIssuer() });
    expect(res.body.errors[0]).toMatchObject({ message: "Pay asset: EURC is not accepted for this payment; pay in one of the assets shown", extensions: { code: "BAD_REQUEST", field: "payAsset" } });
  });

  it("refuses an envelope that pays another payment, or is signed for another network, and submits nothing", async () => {
    const payment = await createPayment({ amount: "1" });
    const another = await createPayment({ amount: "1" });
    const payer = await fundedPayer(wallet);
    const sequence = network.sequence(payer.publicKey());

    const forAnother = await signedTransaction(wallet, payer, [payOp(another.payment_instructions.muxed_destination, "1")]);
    const res = await submitSigned(payment.id, forAnother);
    expect(res.body.errors[0].message).toBe("signedXdr does not pay this payment: memo or muxed id is not this payment's");

    const short = await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "0.5")]);
    expect((await submitSigned(payment.id, short)).body.errors[0].message).toBe("signedXdr does not pay this payment: amount is less than 1.0000000");

    const prepared = (await prepare(payment.id, payer.publicKey())).body.data.prepareCheckoutTransaction;
    const otherNetwork = sign(prepared.xdr, payer, Networks.PUBLIC);
    expect((await submitSigned(payment.id, otherNetwork)).body.errors[0].message).toBe(
      "signedXdr is not signed by its source account for this payment's network",
    );
    expect(network.sequence(payer.publicKey())).toBe(sequence);
    expect((await readPayment(payment.id)).status).toBe("pending");
  });

  it("marks the payment failed with the result codes when the transaction fails on the ledger", async () => {
    const payment = await createPayment({ amount: "5", settlement_asset: usdcRef() });
    const payer = await fundedPayer(wallet);
    network.setTrustline(payer.publicKey(), usdc, { balance: "1" }); // too little
    const prepared = (await prepare(payment.id, payer.publicKey(), { assetCode: "USDC", issuerAddress: usdc.getIssuer() })).body.data
      .prepareCheckoutTransaction;
    const answer = await submitSigned(payment.id, sign(prepared.xdr, payer));
    expect(answer.body.errors).toBeUndefined();
    const s = answer.body.data.submitCheckoutTransaction;
    expect(s).toMatchObject({ successful: false, resultCodes: ["tx_failed", "op_underfunded"], paymentStatus: "failed" });
    const failed = await readPayment(payment.id);
    expect(failed).toMatchObject({ status: "failed", failure_reason: "tx_failed, op_underfunded", tx_hash: null });
    const events = await t.database.db.event.findMany({ where: { resourceId: payment.id }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.failed"]);
  });
});

describe("CheckoutView.quotes", () => {
  const quotes = async (id: string) => {
    const res = await t.graphql(`query ($id: ID!) { checkout(id: $id) { quotes { asset { assetCode issuerAddress } amount } } }`, { id });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.checkout.quotes;
  };

  it("prices the amount due in every allowed asset before there is a payer: exact in the settlement asset, the cheapest path in the others", async () => {
    // EURC is allowed but nobody offers it for USDC: no path, so no quote for it.
    const eurc = network.createAsset("EURC", Keypair.random());
    await enableAsset(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", code: "EURC", issuer: eurc.getIssuer() });
    const eurcRef = { asset_code: "EURC", issuer_address: eurc.getIssuer() };
    const payment = await createPayment({ amount: "10", settlement_asset: usdcRef(), allowed_assets: [usdcRef(), { asset_code: "XLM", issuer_address: null }, eurcRef] });
    // 10 USDC at 4 XLM each.
    expect(await quotes(payment.id)).toEqual([
      { asset: { assetCode: "USDC", issuerAddress: usdc.getIssuer() }, amount: "10.0000000" },
      { asset: { assetCode: "XLM", issuerAddress: null }, amount: "40.0000000" },
    ]);
  });

  it("quotes only the settlement asset when it is the only one, and nothing once paid", async () => {
    const payment = await createPayment({ amount: "3" });
    expect(await quotes(payment.id)).toEqual([{ asset: { assetCode: "XLM", issuerAddress: null }, amount: "3.0000000" }]);
    const payer = await fundedPayer(wallet);
    const prepared = (await prepare(payment.id, payer.publicKey())).body.data.prepareCheckoutTransaction;
    await submitSigned(payment.id, sign(prepared.xdr, payer));
    await waitFor(() => readPayment(payment.id), (r) => r.status === "completed");
    expect(await quotes(payment.id)).toEqual([]);
  });
});

describe("payWithTestWallet", () => {
  const payWithTestWallet = (paymentId: string) =>
    t.graphql(`mutation ($id: ID!) { payWithTestWallet(paymentId: $id) { txHash successful } }`, { id: paymentId });

  it("pays an XLM payment from a throwaway funded wallet", async () => {
    const payment = await createPayment({ amount: "3" });
    const res = (await payWithTestWallet(payment.id)).body.data.payWithTestWallet;
    expect(res.successful).toBe(true);
    expect((await waitFor(() => readPayment(payment.id), (r) => r.status === "completed")).tx_hash).toBe(res.txHash);
  });

  it("pays a credit-asset payment on the simulated network", async () => {
    const payment = await createPayment({ amount: "2", settlement_asset: usdcRef() });
    const res = (await payWithTestWallet(payment.id)).body.data.payWithTestWallet;
    const done = await waitFor(() => readPayment(payment.id), (r) => r.status === "completed");
    expect(done).toMatchObject({ tx_hash: res.txHash, paid_asset: usdcRef() });
  });

  it("is refused for a production payment", async () => {
    const res = await t.api("POST", "/payments", { key: merchant.liveKey, body: { amount: "1" } });
    const answer = await payWithTestWallet(res.body.id);
    expect(answer.body.errors[0].message).toBe("Test wallets exist only in sandbox");
  });
});
