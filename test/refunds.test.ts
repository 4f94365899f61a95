// Refunds on the simulated network with real signed transactions: the service prepares the exact
// transaction, the test signs it with the settlement wallet's key (as the merchant's own wallet
// would), and the money arrives back at the payer. Full, partial and excess refunds; the payer's
// claim for an account that requires a memo (SEP-29); a claimable balance for an account without a
// trustline; a refund signed and sent elsewhere, recognized on the ledger; refunds at once that would
// send back more than arrived; bad input and state conflicts, each changing nothing.
import { Asset, Claimant, Keypair, Memo, Networks, Operation, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { type Wallet, fundedPayer, payOp, signedTransaction, submit, startLedgerWorld, waitFor } from "./support/ledger.ts";
import { signedInUser } from "./support/dashboard.ts";
import { subscribeSse } from "./support/sse.ts";
import type { Merchant, TestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;
let network: SimulatedNetwork;
let wallet: Wallet;
let usdc: Asset;

beforeAll(async () => {
  ({ t, merchant, network, wallet, usdc } = await startLedgerWorld("5"));
  network.setTrustline(merchant.wallet.publicKey(), usdc, { balance: "1000" });
});
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown, key = merchant.sandboxKey) => t.api(method, path, { key, ...(body !== undefined && { body }) });
const readPayment = async (id: string) => (await api("GET", `/payments/${id}`)).body;
const readRefund = async (id: string) => (await api("GET", `/refunds/${id}`)).body;
const events = async (resourceId: string) => (await t.database.db.event.findMany({ where: { resourceId }, orderBy: { seq: "asc" } })).map((e) => e.type);
const stroops = (amount: string | undefined) => BigInt((amount ?? "0").replace(".", ""));

/** A payment of `amount`, paid `paid` (its amount by default) by a new funded payer in its settlement asset. */
async function paidPayment(amount: string, paid = amount, asset: "XLM" | "USDC" = "XLM", payer?: Keypair) {
  const settlement = asset === "USDC" ? { settlement_asset: { asset_code: "USDC", issuer_address: usdc.getIssuer() } } : {};
  const payment = (await api("POST", "/payments", { amount, ...settlement })).body;
  const from = payer ?? (await fundedPayer(wallet));
  if (asset === "USDC") network.setTrustline(from.publicKey(), usdc, { balance: "1000" });
  const { destination, memo } = payment.payment_instructions;
  const sent = await submit(wallet, await signedTransaction(wallet, from, [payOp(destination, paid, asset === "USDC" ? usdc : Asset.native())], { memo: Memo.id(memo) }));
  expect(sent.hash).toBeDefined();
  await waitFor(() => readPayment(payment.id), (p) => p.amount_received === `${paid}.0000000`.replace(/(\.\d{7}).*$/, "$1"));
  return { payment: await readPayment(payment.id), payer: from };
}

/** The refund's transaction signed with `key` (the settlement wallet's by default), as the merchant's wallet signs it. */
function signed(transactionXdr: string, key: Keypair = merchant.wallet): string {
  const tx = TransactionBuilder.fromXDR(transactionXdr, Networks.TESTNET);
  tx.sign(key);
  return tx.toEnvelope().toXDR("base64");
}

async function createRefund(body: Record<string, unknown>, key = merchant.sandboxKey) {
  const res = await api("POST", "/refunds", body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The frames of `live` up to the first that `done` takes: a refund may pass through states a screen sees on the way. */
async function framesUntil(live: Awaited<ReturnType<typeof subscribeSse>>, done: (data: any) => boolean) {
  for (;;) {
    const data = (await live.next()).data;
    if (done(data)) return data;
  }
}

async function signAndSubmit(refund: { id: string; transaction_xdr: string }) {
  return api("POST", `/refunds/${refund.id}/submit`, { signed_transaction_xdr: signed(refund.transaction_xdr) });
}

describe("a refund signed in the merchant's wallet", () => {
  it("sends a whole payment back to the account that paid, and says so everywhere once", async () => {
    const { payment, payer } = await paidPayment("10");
    const before = stroops(network.balance(payer.publicKey()));
    const refund = await createRefund({ payment_id: payment.id, reason: "returned order" });
    expect(refund).toMatchObject({
      object: "refund",
      payment_id: payment.id,
      amount: "10.0000000",
      asset: { asset_code: "XLM", issuer_address: null },
      status: "requires_signature",
      reason: "returned order",
      destination_address: payer.publicKey(),
      destination_memo: null,
      claim_url: null,
      tx_hash: null,
      completed_at: null,
    });
    expect(refund.id).toMatch(/^re_/);
    // The exact transaction: one payment from the settlement wallet, the refund's id as its memo.
    const tx = TransactionBuilder.fromXDR(refund.transaction_xdr, Networks.TESTNET) as import("@stellar/stellar-sdk").Transaction;
    expect(tx.source).toBe(merchant.wallet.publicKey());
    expect(tx.operations).toMatchObject([{ type: "payment", destination: payer.publicKey(), amount: "10.0000000" }]);
    expect(tx.memo.value?.toString()).toBe(refund.id);
    expect(BigInt(tx.sequence)).toBe(BigInt(network.sequence(merchant.wallet.publicKey())!) + 1n);
    const sep7 = new URL(refund.sep7_uri);
    expect(`${sep7.protocol}${sep7.pathname}`).toBe("web+stellar:tx");
    expect(sep7.searchParams.get("xdr")).toBe(refund.transaction_xdr);

    // While it awaits its signature the payment holds it: nothing more is refundable.
    const more = await api("POST", "/refunds", { payment_id: payment.id });
    expect(more).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^payment_id has nothing left to refund/) } });

    const res = await signAndSubmit(refund);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: refund.id, status: "succeeded", tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/), transaction_xdr: null });
    expect(res.body.completed_at).not.toBeNull();
    expect(stroops(network.balance(payer.publicKey())) - before).toBe(100_000_000n);

    const after = await readPayment(payment.id);
    expect(after).toMatchObject({ status: "completed", amount_received: "10.0000000", amount_refunded: "10.0000000" });
    // The stream sees the payment go out too: it ends the refund once, with one event.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await events(refund.id)).toEqual(["refund.created", "refund.succeeded"]);
    const succeeded = await t.database.db.event.findFirstOrThrow({ where: { resourceId: refund.id, type: "refund.succeeded" } });
    expect(JSON.parse(succeeded.data)).toMatchObject({ id: refund.id, status: "succeeded", tx_hash: res.body.tx_hash });
    const audit = await t.database.db.auditEntry.findMany({ where: { resourceId: refund.id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(["refund.created", "refund.submitted"]);

    const listed = await api("GET", `/refunds?payment_id=${payment.id}`);
    expect(listed.body).toMatchObject({ refunds: [{ id: refund.id, status: "succeeded", transaction_xdr: null }], has_more: false });
    const gql = await t.graphql(
      `query ($id: ID!) { payment(id: $id) { amountRefunded refunds(first: 5) { edges { node { id status amount txHash } } } } }`,
      { id: payment.id },
      merchant.sandboxKey,
    );
    expect(gql.body.data.payment).toEqual({ amountRefunded: "10.0000000", refunds: { edges: [{ node: { id: refund.id, status: "succeeded", amount: "10.0000000", txHash: res.body.tx_hash } }] } });
  });

  it("refunds part of a payment, then the excess of an overpayment, never more than arrived", async () => {
    const { payment, payer } = await paidPayment("10", "15");
    expect(payment.amount_received).toBe("15.0000000");
    const refundable = `query ($id: ID!) { payment(id: $id) { amountRefundable } }`;
    expect((await t.graphql(refundable, { id: payment.id }, merchant.sandboxKey)).body.data.payment.amountRefundable).toBe("15.0000000");
    const excess = await createRefund({ payment_id: payment.id, amount: "5", reason: "overpaid" });
    expect(excess).toMatchObject({ amount: "5.0000000", destination_address: payer.publicKey() });
    const part = await createRefund({ payment_id: payment.id, amount: "4" });
    const tooMuch = await api("POST", "/refunds", { payment_id: payment.id, amount: "6.0000001" });
    expect(tooMuch).toMatchObject({ status: 400, body: { error: "amount must be at most 6.0000000, what remains refundable on this payment" } });
    expect((await t.graphql(refundable, { id: payment.id }, merchant.sandboxKey)).body.data.payment.amountRefundable).toBe("6.0000000");
    expect((await signAndSubmit(excess)).body.status).toBe("succeeded");
    expect((await api("POST", `/refunds/${part.id}/cancel`)).body).toMatchObject({ status: "canceled", transaction_xdr: null });
    // Canceled, it holds nothing: 10 are refundable again, and go back by default.
    const rest = await createRefund({ payment_id: payment.id });
    expect(rest.amount).toBe("10.0000000");
    expect((await signAndSubmit(rest)).body.status).toBe("succeeded");
    expect(await readPayment(payment.id)).toMatchObject({ amount_received: "15.0000000", amount_refunded: "15.0000000", status: "completed" });
    expect(await events(part.id)).toEqual(["refund.created", "refund.canceled"]);
  });

  it("refunds a partially paid payment in the asset it arrived in", async () => {
    const { payment, payer } = await paidPayment("10", "4", "USDC");
    expect(payment.status).toBe("pending");
    const refund = await createRefund({ payment_id: payment.id });
    expect(refund).toMatchObject({ amount: "4.0000000", asset: { asset_code: "USDC", issuer_address: usdc.getIssuer() } });
    expect((await signAndSubmit(refund)).body.status).toBe("succeeded");
    expect(network.balance(payer.publicKey(), usdc)).toBe("1000.0000000");
    expect(await readPayment(payment.id)).toMatchObject({ status: "pending", amount_refunded: "4.0000000" });
  });
});

describe("where the money goes", () => {
  it("asks a payer whose account requires a memo (an exchange) to claim the refund, then pays it there with that memo", async () => {
    const exchange = await fundedPayer(wallet);
    const { payment } = await paidPayment("7", "7", "XLM", exchange);
    await submit(wallet, await signedTransaction(wallet, exchange, [Operation.manageData({ name: "config.memo_required", value: "1" })]));
    const refund = await createRefund({ payment_id: payment.id });
    expect(refund).toMatchObject({ status: "pending_claim", destination_address: null, transaction_xdr: null, claim_url: `http://pay.example.test/r/${refund.id}` });

    // The claim page's API: public, by the refund's id.
    const claimQuery = `query ($id: ID!) { refundClaim(id: $id) { id status amount asset { assetCode } destinationAddress } }`;
    expect((await t.graphql(claimQuery, { id: refund.id })).body.data.refundClaim).toEqual({ id: refund.id, status: "pending_claim", amount: "7.0000000", asset: { assetCode: "XLM" }, destinationAddress: null });
    const claim = `mutation ($id: ID!, $destination: RefundDestinationInput!) { claimRefund(id: $id, destination: $destination) { status destinationAddress destinationMemo destinationMemoType claimableBalance } }`;
    const noMemo = await t.graphql(claim, { id: refund.id, destination: { address: exchange.publicKey() } });
    expect(noMemo.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^destination\.memo is required/), extensions: { code: "BAD_REQUEST" } });
    const nobody = await t.graphql(claim, { id: refund.id, destination: { address: Keypair.random().publicKey(), memo: "1" } });
    expect(nobody.body.errors[0].message).toBe("destination.address is not an account on the ledger");
    const notAnAddress = await t.graphql(claim, { id: refund.id, destination: { address: "GABC" } });
    expect(notAnAddress.body.errors[0].message).toBe("Destination address: a Stellar account address: 56 characters starting with G");
    expect((await readRefund(refund.id)).status).toBe("pending_claim");

    const claimed = await t.graphql(claim, { id: refund.id, destination: { address: exchange.publicKey(), memo: "123456", memoType: "id" } });
    expect(claimed.body.data.claimRefund).toEqual({ status: "requires_signature", destinationAddress: exchange.publicKey(), destinationMemo: "123456", destinationMemoType: "id", claimableBalance: false });
    const second = await t.graphql(claim, { id: refund.id, destination: { address: exchange.publicKey(), memo: "999", memoType: "id" } });
    expect(second.body.errors[0].extensions.code).toBe("CONFLICT");

    // The claim page watches the refund live until the money is there.
    const live = await subscribeSse(t.url, `subscription ($id: ID!) { refundClaim(id: $id) { status txHash } }`, { id: refund.id });
    expect((await live.next()).data.refundClaim).toEqual({ status: "requires_signature", txHash: null });
    const ready = await readRefund(refund.id);
    const tx = TransactionBuilder.fromXDR(ready.transaction_xdr, Networks.TESTNET) as import("@stellar/stellar-sdk").Transaction;
    expect(tx.memo).toMatchObject({ type: "id", value: "123456" });
    const paidBack = await signAndSubmit(ready);
    expect(paidBack.body.status).toBe("succeeded");
    expect((await framesUntil(live, (data) => data.refundClaim.status === "succeeded")).refundClaim).toEqual({ status: "succeeded", txHash: paidBack.body.tx_hash });
    live.close();
    const received = await waitFor(async () => (await wallet.horizon.payments().forAccount(exchange.publicKey()).order("desc").limit(1).call()).records[0] as any, (r) => r?.from === merchant.wallet.publicKey());
    const paidTx = await wallet.horizon.transactions().transaction(received.transaction_hash).call();
    expect({ memo: paidTx.memo, memo_type: paidTx.memo_type, amount: received.amount }).toEqual({ memo: "123456", memo_type: "id", amount: "7.0000000" });
  });

  it("sends a claimable balance to a destination without a trustline for the asset, which its owner claims", async () => {
    const { payment } = await paidPayment("3", "3", "USDC");
    const friend = await fundedPayer(wallet);
    const refund = await createRefund({ payment_id: payment.id, destination: { address: friend.publicKey() } });
    const tx = TransactionBuilder.fromXDR(refund.transaction_xdr, Networks.TESTNET) as import("@stellar/stellar-sdk").Transaction;
    expect(tx.operations).toMatchObject([{ type: "createClaimableBalance", amount: "3.0000000", claimants: [{ destination: friend.publicKey() }] }]);
    const gql = await t.graphql(`query ($id: ID!) { refund(id: $id) { transaction { claimableBalance } } }`, { id: refund.id }, merchant.sandboxKey);
    expect(gql.body.data.refund.transaction.claimableBalance).toBe(true);
    expect((await signAndSubmit(refund)).body.status).toBe("succeeded");
    const balances = await wallet.horizon.claimableBalances().claimant(friend.publicKey()).call();
    expect(balances.records).toMatchObject([{ amount: "3.0000000", asset: `USDC:${usdc.getIssuer()}`, sponsor: merchant.wallet.publicKey() }]);
    network.setTrustline(friend.publicKey(), usdc);
    await submit(wallet, await signedTransaction(wallet, friend, [Operation.claimClaimableBalance({ balanceId: balances.records[0]!.id })]));
    expect(network.balance(friend.publicKey(), usdc)).toBe("3.0000000");
  });

  it("asks for a claim when several accounts paid toward the payment", async () => {
    const payment = (await api("POST", "/payments", { amount: "4" })).body;
    const { destination, memo } = payment.payment_instructions;
    for (const payer of [await fundedPayer(wallet), await fundedPayer(wallet)]) {
      await submit(wallet, await signedTransaction(wallet, payer, [payOp(destination, "2")], { memo: Memo.id(memo) }));
    }
    await waitFor(() => readPayment(payment.id), (p) => p.status === "completed");
    expect((await createRefund({ payment_id: payment.id, amount: "1" })).status).toBe("pending_claim");
  });
});

describe("a refund signed and sent elsewhere", () => {
  it("is recognized on the ledger: the wallet sent its transaction to the network itself", async () => {
    const { payment, payer } = await paidPayment("6");
    const refund = await createRefund({ payment_id: payment.id });
    const sent = await submit(wallet, signed(refund.transaction_xdr));
    expect(sent.hash).toBeDefined();
    const done = await waitFor(() => readRefund(refund.id), (r) => r.status === "succeeded");
    expect(done).toMatchObject({ tx_hash: sent.hash, destination_address: payer.publicKey() });
    expect(await readPayment(payment.id)).toMatchObject({ amount_refunded: "6.0000000" });
    expect(await events(refund.id)).toEqual(["refund.created", "refund.succeeded"]);
  });

  it("is recognized when the merchant built the payment themselves, naming the refund in its memo", async () => {
    const { payment, payer } = await paidPayment("2");
    const refund = await createRefund({ payment_id: payment.id });
    const own = await signedTransaction(wallet, merchant.wallet, [payOp(payer.publicKey(), "2")], { memo: Memo.text(refund.id) });
    const sent = await submit(wallet, own);
    const done = await waitFor(() => readRefund(refund.id), (r) => r.status === "succeeded");
    expect(done.tx_hash).toBe(sent.hash);
    // A payment naming no refund, or not its amount, ends none.
    const other = await createRefund({ payment_id: (await paidPayment("2")).payment.id });
    await submit(wallet, await signedTransaction(wallet, merchant.wallet, [payOp(other.destination_address, "1")], { memo: Memo.text(other.id) }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await readRefund(other.id)).status).toBe("requires_signature");
  });

  it("ends once when the process stopped between submitting and the ledger's answer: the stream finds it by its hash", async () => {
    const { payment } = await paidPayment("3");
    const refund = await createRefund({ payment_id: payment.id });
    const signedXdr = signed(refund.transaction_xdr);
    const hash = TransactionBuilder.fromXDR(signedXdr, Networks.TESTNET).hash().toString("hex");
    // What submit writes before it sends, then the sending, and no answer handled (the process died).
    await t.database.db.refund.update({ where: { id: refund.id }, data: { status: "submitted", txHash: hash } });
    await network.submitTransaction(signedXdr);
    const done = await waitFor(() => readRefund(refund.id), (r) => r.status === "succeeded");
    expect(done.tx_hash).toBe(hash);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await events(refund.id)).toEqual(["refund.created", "refund.succeeded"]);
    expect((await readPayment(payment.id)).amount_refunded).toBe("3.0000000");
  });

  it("recognizes a claimable balance refund signed and sent elsewhere from the wallet's operations, once, without anyone reading it", async () => {
    const { payment } = await paidPayment("2", "2", "USDC");
    const stranger = await fundedPayer(wallet);
    const refund = await createRefund({ payment_id: payment.id, destination: { address: stranger.publicKey() } });
    expect(refund.status).toBe("requires_signature");
    const signedXdr = signed(refund.transaction_xdr);
    const hash = TransactionBuilder.fromXDR(signedXdr, Networks.TESTNET).hash().toString("hex");
    // Straight to the network, as a wallet that submits by itself does: the service is not told.
    expect(await network.submitTransaction(signedXdr)).toMatchObject({ status: "included", successful: true });
    // Horizon's /payments leaves claimable balances out (as the real one does): only its operations have it.
    const payments = await wallet.horizon.payments().forTransaction(hash).call();
    const operations = await wallet.horizon.operations().forTransaction(hash).call();
    expect({ payments: payments.records.length, operations: operations.records.map((op) => op.type) }).toEqual({ payments: 0, operations: ["create_claimable_balance"] });
    const stored = () => t.database.db.refund.findUniqueOrThrow({ where: { id: refund.id } });
    const done = await waitFor(stored, (r) => r.status === "succeeded");
    expect(done.txHash).toBe(hash);
    expect((await readPayment(payment.id)).amount_refunded).toBe("2.0000000");
    // A claimable balance the wallet makes for another amount ends no refund.
    const other = await createRefund({ payment_id: (await paidPayment("3", "3", "USDC")).payment.id, destination: { address: stranger.publicKey() } });
    const otherTx = TransactionBuilder.fromXDR(other.transaction_xdr, Networks.TESTNET) as import("@stellar/stellar-sdk").Transaction;
    const wrongAmount = await signedTransaction(wallet, merchant.wallet, [Operation.createClaimableBalance({ asset: usdc, amount: "1", claimants: [new Claimant(stranger.publicKey(), Claimant.predicateUnconditional())] })], { memo: otherTx.memo });
    await submit(wallet, wrongAmount);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await t.database.db.refund.findUniqueOrThrow({ where: { id: other.id } })).status).toBe("requires_signature");
    expect(await events(refund.id)).toEqual(["refund.created", "refund.succeeded"]);
  });

  it("ends once a claimable balance refund whose submit's answer was lost: the wallet's operations show its hash", async () => {
    const { payment } = await paidPayment("2", "2", "USDC");
    const stranger = await fundedPayer(wallet);
    const refund = await createRefund({ payment_id: payment.id, destination: { address: stranger.publicKey() } });
    const signedXdr = signed(refund.transaction_xdr);
    const hash = TransactionBuilder.fromXDR(signedXdr, Networks.TESTNET).hash().toString("hex");
    // What submit writes before it sends, then the sending, and no answer handled (the process died).
    await t.database.db.refund.update({ where: { id: refund.id }, data: { status: "submitted", txHash: hash } });
    await network.submitTransaction(signedXdr);
    const done = await waitFor(() => t.database.db.refund.findUniqueOrThrow({ where: { id: refund.id } }), (r) => r.status === "succeeded");
    expect(done.txHash).toBe(hash);
    const claim = await t.graphql(`query ($id: ID!) { refundClaim(id: $id) { status txHash claimableBalance } }`, { id: refund.id });
    expect(claim.body.data.refundClaim).toEqual({ status: "succeeded", txHash: hash, claimableBalance: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await events(refund.id)).toEqual(["refund.created", "refund.succeeded"]);
  });
});

describe("the merchant's screens, live", () => {
  it("hear the payer's claim, the submission and the end at once, and the timeline says who did each, when", async () => {
    const exchange = await fundedPayer(wallet);
    const { payment } = await paidPayment("4", "4", "XLM", exchange);
    await submit(wallet, await signedTransaction(wallet, exchange, [Operation.manageData({ name: "config.memo_required", value: "1" })]));
    const auth = { authorization: `Bearer ${merchant.sandboxKey}` };
    const fields = `id status destinationAddress destinationMemo txHash`;
    // The Refunds list follows them all; the detail one refund, as it is first.
    const list = await subscribeSse(t.url, `subscription { refundChanges { ${fields} } }`, {}, auth);
    const refund = await createRefund({ payment_id: payment.id, reason: "returned" });
    expect((await list.next()).data.refundChanges).toMatchObject({ id: refund.id, status: "pending_claim" });
    const detail = await subscribeSse(t.url, `subscription ($id: ID!) { refundChanges(id: $id) { ${fields} } }`, { id: refund.id }, auth);
    expect((await detail.next()).data.refundChanges).toMatchObject({ id: refund.id, status: "pending_claim", destinationAddress: null });

    const claim = `mutation ($id: ID!, $destination: RefundDestinationInput!) { claimRefund(id: $id, destination: $destination) { status } }`;
    const claimed = await t.graphql(claim, { id: refund.id, destination: { address: exchange.publicKey(), memo: "42", memoType: "id" } });
    expect(claimed.body.data.claimRefund.status).toBe("requires_signature");
    const heard = { id: refund.id, status: "requires_signature", destinationAddress: exchange.publicKey(), destinationMemo: "42", txHash: null };
    expect((await detail.next(2000)).data.refundChanges).toEqual(heard);
    expect((await list.next(2000)).data.refundChanges).toEqual(heard);

    const paidBack = await signAndSubmit(await readRefund(refund.id));
    expect(paidBack.body.status).toBe("succeeded");
    const end = await framesUntil(detail, (data) => data.refundChanges.status === "succeeded");
    expect(end.refundChanges.txHash).toBe(paidBack.body.tx_hash);
    expect((await framesUntil(list, (data) => data.refundChanges.status === "succeeded")).refundChanges.id).toBe(refund.id);
    list.close();
    detail.close();

    // Recorded: the activity log has the payer's claim, and the refund's timeline has every step.
    const claimEntry = await t.database.db.auditEntry.findFirstOrThrow({ where: { resourceId: refund.id, action: "refund.claimed" } });
    expect(claimEntry).toMatchObject({ actorKind: "payer", detail: `${exchange.publicKey()} (memo id 42)` });
    const timeline = await t.graphql(`query ($id: ID!) { refund(id: $id) { events { type at actor detail } } }`, { id: refund.id }, merchant.sandboxKey);
    const steps = timeline.body.data.refund.events;
    expect(steps.map((e: any) => e.type)).toEqual(["created", "claimed", "transaction_ready", "submitted", "succeeded"]);
    expect(steps[0]).toMatchObject({ detail: `4.0000000 XLM of ${payment.id}: returned` });
    expect(merchant.sandboxKey.startsWith(steps[0].actor)).toBe(true);
    expect(steps[1]).toMatchObject({ actor: "the payer (refund claim page)", detail: `${exchange.publicKey()} (memo id 42)` });
    expect(steps[3]).toMatchObject({ detail: paidBack.body.tx_hash });
    expect(steps[4]).toMatchObject({ actor: null, detail: paidBack.body.tx_hash });
    const times = steps.map((e: any) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    // The claim page says who is refunding, on which network, and (no public explorer for the simulated one) the hash.
    const page = await t.graphql(`query ($id: ID!) { refundClaim(id: $id) { merchantName network txHash explorerUrl } }`, { id: refund.id });
    expect(page.body.data.refundClaim).toMatchObject({ merchantName: expect.any(String), network: "simulated", txHash: paidBack.body.tx_hash, explorerUrl: null });
    expect(page.body.data.refundClaim.merchantName.length).toBeGreaterThan(0);
  });

  it("show no other organization's refunds: a detail stream of one is not found, a list stream hears none of theirs", async () => {
    const { payment } = await paidPayment("1");
    const refund = await createRefund({ payment_id: payment.id });
    const other = await t.createMerchant();
    const auth = { authorization: `Bearer ${other.sandboxKey}` };
    const theirs = await subscribeSse(t.url, `subscription ($id: ID!) { refundChanges(id: $id) { id } }`, { id: refund.id }, auth);
    expect((await theirs.next(2000)).errors[0].extensions.code).toBe("NOT_FOUND");
    theirs.close();
    const list = await subscribeSse(t.url, `subscription { refundChanges { id } }`, {}, auth);
    expect((await api("POST", `/refunds/${refund.id}/cancel`)).status).toBe(200);
    await expect(list.next(800)).rejects.toThrow();
    list.close();
  });
});

describe("refunds at once", () => {
  it("never hold more than arrived: of many concurrent refunds only those that fit are created, round after round", async () => {
    for (let round = 0; round < 5; round++) {
      const { payment } = await paidPayment("10");
      const answers = await Promise.all(Array.from({ length: 8 }, () => api("POST", "/refunds", { payment_id: payment.id, amount: "3" })));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
      for (const refused of answers.filter((a) => a.status !== 201)) {
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatch(/^(amount must be at most|payment_id has nothing left)/);
      }
      const rows = await t.database.db.refund.findMany({ where: { paymentId: payment.id } });
      expect(rows).toHaveLength(3);
      const stored = await t.database.db.payment.findUniqueOrThrow({ where: { id: payment.id } });
      expect(stored.amountRefunding).toBe(90_000_000n);
      expect(await t.database.db.event.count({ where: { type: "refund.created", resourceId: { in: rows.map((r) => r.id) } } })).toBe(3);
    }
  });
});

describe("bad input changes nothing", () => {
  it("refuses a payment with nothing received, more than is refundable, an unknown payment and a destination that is no account, naming the field", async () => {
    const pending = (await api("POST", "/payments", { amount: "5" })).body;
    const { payment } = await paidPayment("5");
    const cases: [Record<string, unknown>, string][] = [
      [{ payment_id: pending.id }, "payment_id has received nothing on the ledger: there is nothing to refund"],
      [{ payment_id: payment.id, amount: "5.0000001" }, "amount must be at most 5.0000000, what remains refundable on this payment"],
      [{ payment_id: payment.id, amount: "0" }, "amount must be greater than 0"],
      [{ payment_id: "pay_unknown" }, "payment_id does not name a payment"],
      [{ payment_id: payment.id, destination: { address: Keypair.random().publicKey() } }, "destination.address is not an account on the ledger"],
      [{ payment_id: payment.id, destination: { address: "GNOTANACCOUNT" } }, "destination.address must be a Stellar public key (G...)"],
      [{ payment_id: payment.id, destination: { address: merchant.wallet.publicKey(), memo: "x".repeat(29) } }, "destination.memo must be at most 28 bytes for memo_type text"],
      [{ payment_id: payment.id, destination: { address: merchant.wallet.publicKey(), memo: "abc", memo_type: "id" } }, "destination.memo must be an unsigned 64-bit integer for memo_type id"],
    ];
    for (const [body, error] of cases) expect(await api("POST", "/refunds", body), JSON.stringify(body)).toMatchObject({ status: 400, body: { error } });
    expect(await t.database.db.refund.count({ where: { paymentId: { in: [pending.id, payment.id] } } })).toBe(0);
    expect((await t.database.db.payment.findUniqueOrThrow({ where: { id: payment.id } })).amountRefunding).toBe(0n);
  });

  it("refuses a signed transaction that is not the refund's, signed by the settlement wallet, naming signed_transaction_xdr; nothing is sent", async () => {
    const { payment, payer } = await paidPayment("4");
    const refund = await createRefund({ payment_id: payment.id });
    const sequence = network.sequence(merchant.wallet.publicKey());
    const account = () => wallet.horizon.loadAccount(merchant.wallet.publicKey());
    const tampered = async (op: xdr.Operation, memo = Memo.text(refund.id)) => {
      const tx = new TransactionBuilder(await account(), { fee: "100", networkPassphrase: Networks.TESTNET }).addOperation(op).addMemo(memo).setTimeout(600).build();
      tx.sign(merchant.wallet);
      return tx.toEnvelope().toXDR("base64");
    };
    const cases: [string, RegExp][] = [
      ["not xdr", /^signed_transaction_xdr is not a transaction envelope$/],
      [signed(refund.transaction_xdr, Keypair.random()), /^signed_transaction_xdr must be signed by the settlement wallet's key/],
      [refund.transaction_xdr, /^signed_transaction_xdr must be signed by the settlement wallet's key/],
      [await tampered(payOp(payer.publicKey(), "5")), /^signed_transaction_xdr must pay exactly 4\.0000000$/],
      [await tampered(payOp(merchant.wallet.publicKey(), "4")), /^signed_transaction_xdr must pay the refund's destination/],
      [await tampered(payOp(payer.publicKey(), "4", usdc)), /^signed_transaction_xdr must pay in XLM$/],
      [await tampered(payOp(payer.publicKey(), "4"), Memo.text("something else")), /^signed_transaction_xdr must carry the refund's memo$/],
      [await signedTransaction(wallet, payer, [payOp(payer.publicKey(), "4")], { memo: Memo.text(refund.id) }), /^signed_transaction_xdr must be sent from the settlement wallet/],
    ];
    for (const [signedXdr, error] of cases) {
      const res = await api("POST", `/refunds/${refund.id}/submit`, { signed_transaction_xdr: signedXdr });
      expect(res.status, String(res.body.error)).toBe(400);
      expect(res.body.error).toMatch(error);
    }
    expect(network.sequence(merchant.wallet.publicKey())).toBe(sequence);
    expect(await readRefund(refund.id)).toMatchObject({ status: "requires_signature", tx_hash: null });
  });

  it("answers the network's result codes when it refuses the transaction, and the refund awaits a new signature", async () => {
    const { payment } = await paidPayment("2");
    const refund = await createRefund({ payment_id: payment.id });
    // Another transaction of the wallet uses the sequence number the refund's was built with.
    await submit(wallet, await signedTransaction(wallet, merchant.wallet, [Operation.bumpSequence({ bumpTo: "0" })]));
    const res = await signAndSubmit(refund);
    expect(res).toMatchObject({ status: 400, body: { error: "signed_transaction_xdr was refused by the network: tx_bad_seq" } });
    const again = await readRefund(refund.id);
    expect(again).toMatchObject({ status: "requires_signature", tx_hash: null });
    expect((await signAndSubmit(again)).body.status).toBe("succeeded");
  });

  it("fails a refund whose transaction fails in its ledger, with its result codes, and releases what it held", async () => {
    const { payment } = await paidPayment("2", "2", "USDC");
    const refund = await createRefund({ payment_id: payment.id });
    // The wallet's USDC leaves before the refund's transaction lands: its payment fails in the ledger.
    network.setTrustline(merchant.wallet.publicKey(), usdc, { balance: "0" });
    const res = await signAndSubmit(refund);
    network.setTrustline(merchant.wallet.publicKey(), usdc, { balance: "1000" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "failed", failure_reason: "tx_failed, op_underfunded", tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await events(refund.id)).toEqual(["refund.created", "refund.failed"]);
    expect((await t.database.db.payment.findUniqueOrThrow({ where: { id: payment.id } })).amountRefunding).toBe(0n);
    expect((await createRefund({ payment_id: payment.id })).amount).toBe("2.0000000");
  });

  it("answers 409 to submitting or canceling a refund that is canceled or finished", async () => {
    const { payment } = await paidPayment("3");
    const canceled = await createRefund({ payment_id: payment.id, amount: "1" });
    expect((await api("POST", `/refunds/${canceled.id}/cancel`)).status).toBe(200);
    expect(await api("POST", `/refunds/${canceled.id}/cancel`)).toMatchObject({ status: 409, body: { error: "Refund is canceled: it cannot be canceled" } });
    expect(await signAndSubmit({ id: canceled.id, transaction_xdr: (await createRefund({ payment_id: payment.id, amount: "1" })).transaction_xdr })).toMatchObject({ status: 409 });
    const done = await createRefund({ payment_id: payment.id, amount: "1" });
    expect((await signAndSubmit(done)).body.status).toBe("succeeded");
    expect(await api("POST", `/refunds/${done.id}/cancel`)).toMatchObject({ status: 409, body: { error: "Refund is succeeded: it cannot be canceled" } });
    expect(await signAndSubmit(done)).toMatchObject({ status: 409, body: { error: "Refund is succeeded: it cannot be submitted" } });
    expect(await events(done.id)).toEqual(["refund.created", "refund.succeeded"]);
  });
});

describe("scope, lists and idempotency", () => {
  it("answers 404 for another organization's or environment's refund", async () => {
    const { payment } = await paidPayment("1");
    const refund = await createRefund({ payment_id: payment.id });
    const other = await t.createMerchant();
    for (const key of [other.sandboxKey, merchant.liveKey]) {
      expect((await api("GET", `/refunds/${refund.id}`, undefined, key)).status).toBe(404);
      expect((await api("POST", `/refunds/${refund.id}/cancel`, undefined, key)).status).toBe(404);
      expect((await api("GET", "/refunds", undefined, key)).body.refunds.map((r: { id: string }) => r.id)).not.toContain(refund.id);
    }
    expect((await api("POST", "/refunds", { payment_id: payment.id }, other.sandboxKey)).body.error).toBe("payment_id does not name a payment");
  });

  it("creates one refund per Idempotency-Key, and lists by status and payment with cursors", async () => {
    const { payment } = await paidPayment("9");
    const headers = { "idempotency-key": `refund-${payment.id}` };
    const first = await t.api("POST", "/refunds", { key: merchant.sandboxKey, body: { payment_id: payment.id, amount: "1" }, headers });
    const replay = await t.api("POST", "/refunds", { key: merchant.sandboxKey, body: { payment_id: payment.id, amount: "1" }, headers });
    expect(replay.raw).toBe(first.raw);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const second = await createRefund({ payment_id: payment.id, amount: "2" });
    await api("POST", `/refunds/${second.id}/cancel`);
    const page1 = await api("GET", `/refunds?payment_id=${payment.id}&limit=1`);
    expect(page1.body).toMatchObject({ refunds: [{ id: second.id }], has_more: true });
    const page2 = await api("GET", `/refunds?payment_id=${payment.id}&limit=1&starting_after=${second.id}`);
    expect(page2.body).toMatchObject({ refunds: [{ id: first.body.id }], has_more: false });
    expect((await api("GET", `/refunds?payment_id=${payment.id}&status=canceled`)).body.refunds.map((r: { id: string }) => r.id)).toEqual([second.id]);
    expect((await api("GET", "/refunds?status=lost")).body.error).toMatch(/^status must be one of/);
  });
});

describe("the desk for unmatched ledger payments", () => {
  /** Money to the settlement wallet with a memo no payment has (while a payment is open, so the wallet is watched). */
  async function unmatched(amount: string) {
    await api("POST", "/payments", { amount: "1" });
    const payer = await fundedPayer(wallet);
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(merchant.wallet.publicKey(), amount)], { memo: Memo.text("my order") }));
    const row = await waitFor(() => t.database.db.ledgerPayment.findFirst({ where: { txHash: sent.hash! } }), (r) => r !== null);
    return { operationId: row!.operationId, payer };
  }
  const apply = `mutation ($op: String!, $pay: String!, $reason: String!) { applyUnmatchedLedgerPayment(operationId: $op, paymentId: $pay, reason: $reason) { id status amountReceived } }`;
  const refundIt = `mutation ($input: RefundUnmatchedLedgerPaymentInput!) { refundUnmatchedLedgerPayment(input: $input) { id status amount ledgerOperationId destinationAddress transaction { xdr } } }`;

  it("applies one to a payment the merchant picks, completing it, with the reason in the activity log", async () => {
    const { operationId } = await unmatched("8");
    const payment = (await api("POST", "/payments", { amount: "8" })).body;
    const res = await t.graphql(apply, { op: operationId, pay: payment.id, reason: "paid with the order number as memo" }, merchant.sandboxKey);
    expect(res.body.data.applyUnmatchedLedgerPayment).toEqual({ id: payment.id, status: "completed", amountReceived: "8.0000000" });
    expect(await events(payment.id)).toEqual(["payment.created", "payment.completed"]);
    const audit = await t.database.db.auditEntry.findFirstOrThrow({ where: { resourceId: payment.id, action: "ledger_payment.applied" } });
    expect(audit.detail).toContain("paid with the order number as memo");
    const twice = await t.graphql(apply, { op: operationId, pay: payment.id, reason: "again" }, merchant.sandboxKey);
    expect(twice.body.errors[0]).toMatchObject({ message: `This money counts toward ${payment.id} already`, extensions: { field: "operationId" } });
    // Now counted toward the payment, it can be refunded from it.
    expect((await createRefund({ payment_id: payment.id, amount: "1" })).status).toBe("requires_signature");
  });

  it("sends one back to its sender through a refund, once", async () => {
    const { operationId, payer } = await unmatched("5");
    const before = stroops(network.balance(payer.publicKey()));
    const res = await t.graphql(refundIt, { input: { operationId, reason: "unknown memo" } }, merchant.sandboxKey);
    const refund = res.body.data.refundUnmatchedLedgerPayment;
    expect(refund).toMatchObject({ status: "requires_signature", amount: "5.0000000", ledgerOperationId: operationId, destinationAddress: payer.publicKey() });
    const again = await t.graphql(refundIt, { input: { operationId } }, merchant.sandboxKey);
    expect(again.body.errors[0].message).toBe(`This money is being sent back already (${refund.id})`);
    const listed = await t.graphql(`{ unmatchedLedgerPayments(first: 50) { edges { node { operationId refundId } } } }`, {}, merchant.sandboxKey);
    expect(listed.body.data.unmatchedLedgerPayments.edges.map((e: any) => e.node)).toContainEqual({ operationId, refundId: refund.id });
    const payment = (await api("POST", "/payments", { amount: "5" })).body;
    expect((await t.graphql(apply, { op: operationId, pay: payment.id, reason: "x" }, merchant.sandboxKey)).body.errors[0].message).toMatch(/^This money is being sent back already/);
    const submitted = await t.graphql(
      `mutation ($id: ID!, $xdr: String!) { submitRefund(id: $id, signedTransactionXdr: $xdr) { status txHash } }`,
      { id: refund.id, xdr: signed(refund.transaction.xdr) },
      merchant.sandboxKey,
    );
    expect(submitted.body.data.submitRefund.status).toBe("succeeded");
    expect(stroops(network.balance(payer.publicKey())) - before).toBe(50_000_000n);
  });

  it("lets owners and admins refund and apply, not developers or viewers (the write permission); the claim needs no one", async () => {
    const { payment } = await paidPayment("1");
    const create = `mutation ($input: CreateRefundInput!) { createRefund(input: $input) { id } }`;
    for (const role of ["developer", "viewer"] as const) {
      const user = await signedInUser(t, merchant.organizationId, role);
      const refused = await user.graphql(create, { input: { paymentId: payment.id } });
      expect(refused.body.errors[0].extensions.code).toBe("FORBIDDEN");
      expect((await user.graphql(`query ($id: String) { refunds(first: 5, paymentId: $id) { edges { node { id } } } }`, { id: payment.id })).body.errors).toBeUndefined();
    }
    expect((await t.graphql(create, { input: { paymentId: payment.id } })).body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    const admin = await signedInUser(t, merchant.organizationId, "admin");
    expect((await admin.graphql(create, { input: { paymentId: payment.id } })).body.data.createRefund.id).toMatch(/^re_/);
    expect(await t.database.db.refund.count({ where: { paymentId: payment.id } })).toBe(1);
  });
});
