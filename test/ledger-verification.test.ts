// Paying payments on the simulated network with real signed transactions, and the streamer's
// verification rules: what completes a payment, and what never does.
import { Asset, Keypair, Memo, Networks, Operation } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { LATE_WINDOW_MS } from "../src/modules/payments/payment-states.ts";
import { expectCompletionSnapshots } from "./ledger/completion-events.ts";
import { type Wallet, fundedPayer, payOp, signedTransaction, submit, startLedgerWorld, waitFor } from "./support/ledger.ts";
import { paymentsApi } from "./support/payments-api.ts";
import type { Merchant, TestApp } from "./support/test-app.ts";

type Payments = ReturnType<typeof paymentsApi>;

let t: TestApp;
let merchant: Merchant;
let network: SimulatedNetwork;
let wallet: Wallet;
let usdc: Asset;

// 1 USDC costs 5 XLM on the order book.
beforeAll(async () => {
  ({ t, merchant, network, wallet, usdc } = await startLedgerWorld("5"));
  ({ createPayment, readPayment, waitForStatus } = paymentsApi(t, merchant.sandboxKey));
});
afterAll(() => t.close());

let createPayment: Payments["createPayment"];
let readPayment: Payments["readPayment"];
let waitForStatus: Payments["waitForStatus"];
const waitForReceived = (id: string, amount: string) => waitFor(() => readPayment(id), (p) => p.amount_received === amount);
const usdcRef = () => ({ asset_code: "USDC", issuer_address: usdc.getIssuer() });

describe("payment instructions", () => {
  it("give the settlement wallet, the muxed address, an id memo and a SEP-7 URI", async () => {
    const payment = await createPayment({ amount: "12.5", settlement_asset: usdcRef() });
    const i = payment.payment_instructions;
    expect(i).toMatchObject({ destination: merchant.wallet.publicKey(), memo_type: "id", network_passphrase: Networks.TESTNET });
    expect(i.memo).toMatch(/^\d+$/);
    expect(BigInt(i.memo) < 2n ** 63n).toBe(true);
    expect(i.muxed_destination).toMatch(/^M/);
    const uri = new URL(i.sep7_uri);
    expect(uri.protocol).toBe("web+stellar:");
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      destination: merchant.wallet.publicKey(),
      amount: "12.5000000",
      asset_code: "USDC",
      asset_issuer: usdc.getIssuer(),
      memo: i.memo,
      memo_type: "MEMO_ID",
      network_passphrase: Networks.TESTNET,
    });
    const gql = await t.graphql(`query ($id: ID!) { payment(id: $id) { paymentInstructions { muxedDestination memo memoType sep7Uri } } }`, { id: payment.id }, merchant.sandboxKey);
    expect(gql.body.data.payment.paymentInstructions).toEqual({ muxedDestination: i.muxed_destination, memo: i.memo, memoType: "id", sep7Uri: i.sep7_uri });
  });
});

describe("completing payments from the ledger", () => {
  it("completes a payment paid to the plain destination with its memo, with the transaction's hash", async () => {
    const payment = await createPayment({ amount: "12.5" });
    const payer = await fundedPayer(wallet);
    const { destination, memo } = payment.payment_instructions;
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(destination, "12.5")], { memo: Memo.id(memo) }));
    expect(sent.hash).toMatch(/^[0-9a-f]{64}$/);
    const done = await waitForStatus(payment.id, "completed");
    expect(done).toMatchObject({
      tx_hash: sent.hash,
      payer_address: payer.publicKey(),
      paid_asset: { asset_code: "XLM", issuer_address: null },
      amount_received: "12.5000000",
      late: false,
    });
    expect(done.confirmed_at).not.toBeNull();
    const events = await t.database.db.event.findMany({ where: { resourceId: payment.id }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.completed"]);
    expect(JSON.parse(events[1]!.data)).toMatchObject({ status: "completed", tx_hash: sent.hash });
  });

  it("wakes the webhook worker once a completion is committed, without waiting for its poll", async () => {
    const payment = await createPayment({ amount: "2" });
    const payer = await fundedPayer(wallet);
    // Submitting through the simulated Horizon is a POST to the app, which wakes the worker too:
    // only a wake after the completion's event was written counts.
    const wakes: number[] = [];
    const wake = vi.spyOn(t.app.webhooks, "wake").mockImplementation(() => void wakes.push(Date.now()));
    try {
      await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "2")]));
      await waitForStatus(payment.id, "completed");
      const completed = await t.database.db.event.findFirstOrThrow({ where: { resourceId: payment.id, type: "payment.completed" } });
      await waitFor(async () => wakes, (times) => times.some((time) => time >= completed.createdAt.getTime()));
    } finally {
      wake.mockRestore();
    }
  });

  it("completes a payment paid to its muxed destination without a memo", async () => {
    const payment = await createPayment({ amount: "3" });
    const payer = await fundedPayer(wallet);
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "3")]));
    expect((await waitForStatus(payment.id, "completed")).tx_hash).toBe(sent.hash);
  });

  it("completes a path payment and records the asset the payer spent", async () => {
    const payment = await createPayment({ amount: "10", settlement_asset: usdcRef() });
    const payer = await fundedPayer(wallet);
    const op = Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(),
      sendMax: "50.5",
      destination: payment.payment_instructions.muxed_destination,
      destAsset: usdc,
      destAmount: "10",
      path: [],
    });
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [op]));
    expect(sent.codes).toBeUndefined();
    const done = await waitForStatus(payment.id, "completed");
    expect(done).toMatchObject({ tx_hash: sent.hash, paid_asset: { asset_code: "XLM", issuer_address: null }, amount_received: "10.0000000" });
  });

  it("accumulates a short payment and completes on the top-up, showing any excess", async () => {
    const payment = await createPayment({ amount: "10" });
    const payer = await fundedPayer(wallet);
    const to = payment.payment_instructions.muxed_destination;
    await submit(wallet, await signedTransaction(wallet, payer, [payOp(to, "4")]));
    const partial = await waitForReceived(payment.id, "4.0000000");
    expect(partial.status).toBe("pending");
    const topUp = await submit(wallet, await signedTransaction(wallet, payer, [payOp(to, "7")]));
    const done = await waitForStatus(payment.id, "completed");
    expect(done).toMatchObject({ tx_hash: topUp.hash, amount_received: "11.0000000" });
  });
});

describe("many payments in one ledger", () => {
  it("are applied together: completions with their sessions and invoices, partial, over and unmatched payments", async () => {
    const plain = await createPayment({ amount: "1" });
    const session = (await t.api("POST", "/checkout-sessions", { key: merchant.sandboxKey, body: { amount: "2" } })).body;
    const items = [{ description: "Hour", quantity: "3", unit_amount: "1" }];
    const draft = (await t.api("POST", "/invoices", { key: merchant.sandboxKey, body: { items } })).body;
    const invoice = (await t.api("POST", `/invoices/${draft.id}/finalize`, { key: merchant.sandboxKey })).body.invoice;
    const short = await createPayment({ amount: "5" });
    const twiceShort = await createPayment({ amount: "4" });
    const over = await createPayment({ amount: "1" });
    const to = async (id: string) => (await readPayment(id)).payment_instructions.muxed_destination;
    const payer = await fundedPayer(wallet);
    const ops = [
      payOp(await to(plain.id), "1"),
      payOp(await to(session.payment_intent_id), "2"),
      payOp(await to(invoice.payment_intent_id), "3"),
      payOp(await to(short.id), "2"),
      payOp(await to(twiceShort.id), "1"),
      payOp(await to(twiceShort.id), "0.5"),
      payOp(await to(over.id), "3"),
      payOp(merchant.wallet.publicKey(), "0.5"),
    ];
    const sent = await submit(wallet, await signedTransaction(wallet, payer, ops));
    expect(sent.codes).toBeUndefined();

    const paid = [plain.id, session.payment_intent_id, invoice.payment_intent_id, over.id];
    for (const id of paid) expect(await waitForStatus(id, "completed")).toMatchObject({ tx_hash: sent.hash, late: false });
    expect(await readPayment(over.id)).toMatchObject({ amount_received: "3.0000000" });
    // Each partial payment is credited with its own operations, in one statement for all of them.
    expect(await readPayment(short.id)).toMatchObject({ status: "pending", amount_received: "2.0000000" });
    expect(await readPayment(twiceShort.id)).toMatchObject({ status: "pending", amount_received: "1.5000000" });
    const recorded = await t.database.db.ledgerPayment.findMany({ where: { txHash: sent.hash! }, orderBy: { operationId: "asc" } });
    expect(recorded.map((r) => r.paymentId)).toEqual([...paid.slice(0, 3), short.id, twiceShort.id, twiceShort.id, over.id, null]);

    const read = (path: string) => t.api("GET", path, { key: merchant.sandboxKey });
    expect((await read(`/checkout-sessions/${session.id}`)).body.status).toBe("complete");
    expect((await read(`/invoices/${draft.id}`)).body.status).toBe("paid");
    for (const id of paid) await expectCompletionSnapshots(t, id);
    const resources = [...paid, session.id, invoice.checkout_session_id, draft.id];
    const events = await t.database.db.event.findMany({ where: { resourceId: { in: resources } }, orderBy: { seq: "asc" } });
    expect(events.filter((e) => e.type !== "payment.created" && e.type !== "invoice.finalized").map((e) => [e.type, e.resourceId])).toEqual([
      ["payment.completed", plain.id],
      ["payment.completed", session.payment_intent_id],
      ["checkout.session.completed", session.id],
      ["payment.completed", invoice.payment_intent_id],
      ["checkout.session.completed", invoice.checkout_session_id],
      ["invoice.paid", draft.id],
      ["payment.completed", over.id],
    ]);
  });
});

describe("what never completes a payment", () => {
  // Each case is followed by a correct payment: once that one completed, the stream has certainly
  // seen the bad one before it (ledger order), and it counted for nothing.
  async function expectOnlyTheRightPaymentCounts(payment: any, payer: Keypair, rightOp: ReturnType<typeof payOp>, memo?: Memo) {
    const right = await submit(wallet, await signedTransaction(wallet, payer, [rightOp], memo ? { memo } : {}));
    const done = await waitForStatus(payment.id, "completed");
    expect(done).toMatchObject({ tx_hash: right.hash, amount_received: payment.amount });
    return done;
  }

  it("a payment in another asset, kept as an unmatched ledger payment", async () => {
    const payment = await createPayment({ amount: "2", settlement_asset: usdcRef() });
    const payer = await fundedPayer(wallet);
    network.setTrustline(payer.publicKey(), usdc, { balance: "100" });
    const to = payment.payment_instructions.muxed_destination;
    const wrong = await submit(wallet, await signedTransaction(wallet, payer, [payOp(to, "2")]));
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(to, "2", usdc));
    const kept = await t.database.db.ledgerPayment.findMany({ where: { txHash: wrong.hash! } });
    expect(kept).toMatchObject([{ paymentId: null, assetCode: "XLM", amount: 20_000_000n, muxedId: payment.payment_instructions.memo }]);
  });

  it("the same code from another issuer", async () => {
    const payment = await createPayment({ amount: "2", settlement_asset: usdcRef() });
    const fake = network.createAsset("USDC", Keypair.random());
    network.setTrustline(merchant.wallet.publicKey(), fake);
    const payer = await fundedPayer(wallet);
    network.setTrustline(payer.publicKey(), fake, { balance: "100" });
    network.setTrustline(payer.publicKey(), usdc, { balance: "100" });
    const to = payment.payment_instructions.muxed_destination;
    await submit(wallet, await signedTransaction(wallet, payer, [payOp(to, "5", fake)]));
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(to, "2", usdc));
  });

  it("a transaction that failed on the ledger", async () => {
    const payment = await createPayment({ amount: "1" });
    const payer = await fundedPayer(wallet);
    const to = payment.payment_instructions.muxed_destination;
    // The second operation fails (the payer holds no USDC), so the whole transaction fails.
    const failed = await submit(wallet, await signedTransaction(wallet, payer, [payOp(to, "1"), payOp(to, "1", usdc)]));
    expect(failed.codes?.transaction).toBe("tx_failed");
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(to, "1"));
  });

  it("a transaction signed for another network", async () => {
    const payment = await createPayment({ amount: "1" });
    const payer = await fundedPayer(wallet);
    const to = payment.payment_instructions.muxed_destination;
    const other = await submit(wallet, await signedTransaction(wallet, payer, [payOp(to, "1")], { networkPassphrase: Networks.PUBLIC }));
    expect(other.codes?.transaction).toBe("tx_bad_auth");
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(to, "1"));
  });

  it("a replayed transaction: the ledger refuses it and the operation counts once", async () => {
    const payment = await createPayment({ amount: "4" });
    const payer = await fundedPayer(wallet);
    const to = payment.payment_instructions.muxed_destination;
    const envelope = await signedTransaction(wallet, payer, [payOp(to, "2")]);
    const first = await submit(wallet, envelope);
    await waitForReceived(payment.id, "2.0000000");
    const replay = await submit(wallet, envelope);
    expect(replay.codes?.transaction).toBe("tx_bad_seq");
    const done = await expectOnlyTheRightPaymentCounts({ ...payment, amount: "4.0000000" }, payer, payOp(to, "2"));
    expect(done.amount_received).toBe("4.0000000");
    expect(await t.database.db.ledgerPayment.count({ where: { txHash: first.hash! } })).toBe(1);
  });

  it("an outgoing payment from the settlement wallet, even with the payment's memo", async () => {
    const payment = await createPayment({ amount: "1" });
    const payer = await fundedPayer(wallet);
    const out = await submit(wallet, await signedTransaction(wallet, merchant.wallet, [payOp(payer.publicKey(), "5")], { memo: Memo.id(payment.payment_instructions.memo) }));
    expect(out.codes).toBeUndefined();
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(payment.payment_instructions.muxed_destination, "1"));
    expect(await t.database.db.ledgerPayment.count({ where: { txHash: out.hash! } })).toBe(0);
  });

  it("a payment with an unknown memo: kept as unmatched and listed through GraphQL", async () => {
    const payer = await fundedPayer(wallet);
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(merchant.wallet.publicKey(), "1.5")], { memo: Memo.id("42") }));
    // A pending payment keeps the wallet streamed; completing it proves the stream went past the stray one.
    const payment = await createPayment({ amount: "1" });
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(payment.payment_instructions.muxed_destination, "1"));
    const res = await t.graphql(
      `{ unmatchedLedgerPayments(first: 50) { edges { node { txHash amount asset { assetCode } memo memoType sourceAccount } } } }`,
      {},
      merchant.sandboxKey,
    );
    const nodes = res.body.data.unmatchedLedgerPayments.edges.map((e: any) => e.node);
    expect(nodes).toContainEqual({ txHash: sent.hash, amount: "1.5000000", asset: { assetCode: "XLM" }, memo: "42", memoType: "id", sourceAccount: payer.publicKey() });
  });

  it("unmatched ledger payments page with the cursors they hand out (finding: they were refused as not cursors of the list)", async () => {
    const payer = await fundedPayer(wallet);
    for (const memo of ["43", "44"]) {
      await submit(wallet, await signedTransaction(wallet, payer, [payOp(merchant.wallet.publicKey(), "1")], { memo: Memo.id(memo) }));
    }
    const payment = await createPayment({ amount: "1" });
    await expectOnlyTheRightPaymentCounts(payment, payer, payOp(payment.payment_instructions.muxed_destination, "1"));
    const query = `query ($after: String) {
      unmatchedLedgerPayments(first: 1, after: $after) { edges { cursor node { txHash } } pageInfo { hasNextPage } } }`;
    const all = await t.graphql(`{ unmatchedLedgerPayments(first: 50) { edges { node { txHash } } } }`, {}, merchant.sandboxKey);
    const expected = all.body.data.unmatchedLedgerPayments.edges.map((e: any) => e.node.txHash);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    const paged: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await t.graphql(query, { after }, merchant.sandboxKey);
      expect(res.body.errors).toBeUndefined();
      const { edges, pageInfo } = res.body.data.unmatchedLedgerPayments;
      paged.push(...edges.map((e: any) => e.node.txHash));
      if (!pageInfo.hasNextPage) break;
      after = edges[0].cursor;
    }
    expect(paged).toEqual(expected);
  });
});

describe("late payments", () => {
  it("an expired payment paid afterwards completes with late: true", async () => {
    const payment = await createPayment({ amount: "1", expires_in_minutes: 5 });
    t.clock.advance(5 * 60_000 + 1000);
    expect(await t.app.ledger.sweeper.runOnce()).toBeGreaterThanOrEqual(1);
    expect((await readPayment(payment.id)).status).toBe("expired");
    const payer = await fundedPayer(wallet);
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "1")]));
    expect(sent.codes).toBeUndefined();
    const done = await waitForStatus(payment.id, "completed");
    expect(done).toMatchObject({ late: true, tx_hash: sent.hash });
  });

  // "Open for the ledger" (payment-states.ts) decides which wallets are watched: expired payments
  // only for a day. It does not decide what completes: money seen for a payment expired longer ago
  // (its wallet watched for another payment) completes it late, as the spec's state table says.
  it("a payment expired more than a day ago still completes late when its money is seen", async () => {
    const payment = await createPayment({ amount: "1", expires_in_minutes: 5 });
    t.clock.advance(5 * 60_000 + 1000);
    expect(await t.app.ledger.sweeper.runOnce()).toBeGreaterThanOrEqual(1);
    t.clock.advance(LATE_WINDOW_MS + 60_000);
    await createPayment({ amount: "1", expires_in_minutes: 60 }); // keeps the wallet watched
    await t.app.ledger.streamer.refresh();
    expect(t.app.ledger.streamer.watches(Networks.TESTNET, merchant.wallet.publicKey())).toBe(true);
    const payer = await fundedPayer(wallet);
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "1")]));
    expect(sent.codes).toBeUndefined();
    expect(await waitForStatus(payment.id, "completed")).toMatchObject({ late: true, tx_hash: sent.hash });
  });
});
