// The Stellar RPC ledger source (issue 28) against the simulated network's RPC: what only RPC does.
// The ledger suite it shares with Horizon runs again on RPC in the *-rpc vitest projects.
import { randomBytes } from "node:crypto";
import { Asset, Keypair, Networks, StrKey } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFatal } from "../src/ledger/ledger-source.ts";
import { cursorBeforeLedger } from "../src/ledger/rpc-events.ts";
import { RpcSource } from "../src/ledger/rpc-source.ts";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { enableAsset } from "../src/modules/organizations/organizations.service.ts";
import { serve } from "../src/server.ts";
import { captureLog } from "./support/captured-log.ts";
import { fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { paymentsApi } from "./support/payments-api.ts";
import { startWebhookReceiver } from "./support/webhook-receiver.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

type Payments = ReturnType<typeof paymentsApi>;

let t: TestApp;
let merchant: Merchant;
let network: SimulatedNetwork;

beforeAll(async () => {
  t = await startTestApp({ workers: true, env: { LEDGER: "simulated", LEDGER_API: "rpc", SIM_LEDGER_CLOSE_MS: "100", STELLAR_RPC_POLL_MS: "100", WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant();
  ({ createPayment, waitForStatus } = paymentsApi(t, merchant.sandboxKey));
  network = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;
  await network.fund(merchant.wallet.publicKey());
});
afterAll(() => t.close());

let createPayment: Payments["createPayment"];
let waitForStatus: Payments["waitForStatus"];
const contractAddress = () => StrKey.encodeContract(randomBytes(32));

describe("the service on Stellar RPC", () => {
  it("says on /ready which API each network uses, and that RPC alone quotes no path payments", async () => {
    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      networks: [
        { network: "sandbox", api: "Stellar RPC", path_payments: false },
        { network: "production", api: "Stellar RPC", path_payments: false },
      ],
    });
  });

  it("offers the payer only the settlement asset: RPC finds no paths", async () => {
    const usdc = network.createAsset("USDC", Keypair.random());
    await enableAsset(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", code: "USDC", issuer: usdc.getIssuer() });
    network.setTrustline(merchant.wallet.publicKey(), usdc);
    network.addOffer({ selling: usdc, buying: Asset.native(), price: "5", amount: "1000" });
    const source = t.app.ledger.sourceFor(Networks.TESTNET);
    const paths = await source.findStrictReceivePaths({ sourceAssets: [{ code: "XLM", issuer: null }], destinationAsset: { code: "USDC", issuer: usdc.getIssuer() }, destinationAmount: 10_000_000n });
    expect(paths).toEqual([]);
    // Its trustline is read by asset (getLedgerEntries), as the settlement wallet's health needs.
    const account = await source.loadAccount(merchant.wallet.publicKey(), { assets: [{ code: "USDC", issuer: usdc.getIssuer() }] });
    expect(account?.balances).toEqual([
      { asset: { code: "XLM", issuer: null }, balance: expect.any(BigInt) },
      { asset: { code: "USDC", issuer: usdc.getIssuer() }, balance: 0n },
    ]);
    // The checkout offers XLM alone (USDC is allowed, but paying in it needs a path), and a
    // transaction in USDC is refused saying why, not with "No path ... for this amount".
    const payment = await createPayment({ amount: "2" });
    expect(payment.allowed_assets).toEqual([{ asset_code: "XLM", issuer_address: null }, { asset_code: "USDC", issuer_address: usdc.getIssuer() }]);
    const view = await t.graphql(`query ($id: ID!) { checkout(id: $id) { allowedAssets { assetCode } quotes { asset { assetCode } } } }`, { id: payment.id });
    expect(view.body.data.checkout).toEqual({ allowedAssets: [{ assetCode: "XLM" }], quotes: [{ asset: { assetCode: "XLM" } }] });
    const payer = await fundedPayer(walletOn(network, `${t.url}/_sim/horizon`));
    const prepared = await t.graphql(
      `mutation ($id: ID!, $payer: String!, $asset: AssetRefInput) { prepareCheckoutTransaction(paymentId: $id, payerAddress: $payer, payAsset: $asset) { xdr } }`,
      { id: payment.id, payer: payer.publicKey(), asset: { assetCode: "USDC", issuerAddress: usdc.getIssuer() } },
    );
    expect(prepared.body.errors[0]).toMatchObject({ extensions: { code: "BAD_REQUEST" } });
    expect(prepared.body.errors[0].message).toBe("Pay asset: only XLM can be paid on this network (watched through Stellar RPC, which finds no paths); pay in XLM");
  });

  it("completes a payment from a contract account (C...) like any other: webhook, checkout receipt, and a refund the payer claims to an account", async () => {
    const receiver = await startWebhookReceiver();
    const endpoint = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url: `${receiver.url}/hook`, enabled_events: ["payment.completed"] } });
    expect(endpoint.status).toBe(201);
    const payment = await createPayment({ amount: "3" });
    const contract = contractAddress();
    const recorded = await network.recordContractTransfer({ from: contract, to: payment.payment_instructions.muxed_destination, asset: Asset.native(), amount: "3" });
    expect(recorded.successful).toBe(true);
    const done = await waitForStatus(payment.id, "completed");
    expect(done).toMatchObject({ tx_hash: recorded.hash, payer_address: contract, amount_received: "3.0000000", paid_asset: { asset_code: "XLM", issuer_address: null } });
    const completed = await t.database.db.event.findFirstOrThrow({ where: { resourceId: payment.id, type: "payment.completed" } });
    expect(JSON.parse(completed.data)).toMatchObject({ payer_address: contract, tx_hash: recorded.hash });
    // A classic payment cannot reach a contract: the payer names an account to be refunded to.
    // The merchant's webhook, delivered once, names the contract as the payer.
    await receiver.waitFor("/hook", 1);
    const delivered = receiver.at("/hook").map((r) => JSON.parse(r.rawBody));
    expect(delivered).toMatchObject([{ event: "payment.completed", data: { id: payment.id, payer_address: contract, tx_hash: recorded.hash, amount_received: "3.0000000" } }]);
    // The payer's checkout shows the paid state with its receipt: the transaction that paid it.
    const checkout = await t.graphql(`query ($id: ID!) { checkout(id: $id) { state receipt { txHash paidAsset { assetCode } } } }`, { id: payment.id });
    expect(checkout.body.data.checkout).toEqual({ state: "paid", receipt: { txHash: recorded.hash, paidAsset: { assetCode: "XLM" } } });
    // The merchant's dashboard shows the contract as the payer.
    const detail = await t.graphql(`query ($id: ID!) { payment(id: $id) { payerAddress } }`, { id: payment.id }, merchant.sandboxKey);
    expect(detail.body.data.payment.payerAddress).toBe(contract);
    // A classic payment cannot reach a contract: the refund waits for the payer to name an account,
    // and naming the contract itself is refused, saying why.
    const refund = await t.api("POST", "/refunds", { key: merchant.sandboxKey, body: { payment_id: payment.id } });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ status: "pending_claim", destination_address: null, claim_url: expect.stringContaining(`/r/${refund.body.id}`) });
    const claim = `mutation ($id: ID!, $destination: RefundDestinationInput!) { claimRefund(id: $id, destination: $destination) { status destinationAddress } }`;
    const toContract = await t.graphql(claim, { id: refund.body.id, destination: { address: contract } });
    expect(toContract.body.errors[0]).toMatchObject({ message: "Destination address: a Stellar account address: 56 characters starting with G", extensions: { code: "BAD_REQUEST" } });
    const payerAccount = await fundedPayer(walletOn(network, `${t.url}/_sim/horizon`));
    const claimed = await t.graphql(claim, { id: refund.body.id, destination: { address: payerAccount.publicKey() } });
    expect(claimed.body.data.claimRefund).toEqual({ status: "requires_signature", destinationAddress: payerAccount.publicKey() });
    await receiver.close();
  });

  it("matches a contract's transfer to the plain settlement wallet by nothing: kept as unmatched, counted once", async () => {
    const contract = contractAddress();
    const recorded = await network.recordContractTransfer({ from: contract, to: merchant.wallet.publicKey(), asset: Asset.native(), amount: "1.5" });
    // A payment paid after it: once completed, the stream has certainly gone past the stray transfer.
    const payment = await createPayment({ amount: "1" });
    const payer = await fundedPayer(walletOn(network, `${t.url}/_sim/horizon`));
    const wallet = walletOn(network, `${t.url}/_sim/horizon`);
    await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "1")]));
    await waitForStatus(payment.id, "completed");
    const kept = await t.database.db.ledgerPayment.findMany({ where: { txHash: recorded.hash } });
    expect(kept).toMatchObject([{ paymentId: null, sourceAccount: contract, amount: 15_000_000n }]);
  });

  it("sends a transaction with sendTransaction and polls it to its ledger's outcome", async () => {
    const wallet = walletOn(network, `${t.url}/_sim/horizon`);
    const payer = await fundedPayer(wallet);
    const source = t.app.ledger.sourceFor(Networks.TESTNET);
    const paid = await source.submitTransaction(await signedTransaction(wallet, payer, [payOp(merchant.wallet.publicKey(), "1")]));
    expect(paid).toMatchObject({ successful: true, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const read = await source.getTransaction(paid.hash);
    expect(read).toMatchObject({ hash: paid.hash, successful: true, memoType: "none" });
    // Refused before any ledger (the same sequence again): Horizon's codes.
    const stale = await signedTransaction(wallet, payer, [payOp(merchant.wallet.publicKey(), "1")]);
    await source.submitTransaction(stale);
    expect(await source.submitTransaction(stale)).toMatchObject({ successful: false, resultCodes: { transaction: "tx_bad_seq" } });
    // Failed in its ledger: tx_failed with the operation's code.
    const usdc = network.createAsset("EURC", Keypair.random());
    const failed = await source.submitTransaction(await signedTransaction(wallet, payer, [payOp(merchant.wallet.publicKey(), "1", usdc)]));
    expect(failed).toMatchObject({ successful: false, resultCodes: { transaction: "tx_failed", operations: [expect.stringMatching(/^op_/)] } });
  });
});

describe("a node that cannot serve the network", () => {
  it("of another network (getNetwork's passphrase) stops the stream with a clear error, and every call with it", async () => {
    const log = captureLog();
    const source = new RpcSource({ url: `${t.url}/_sim/public/rpc`, networkPassphrase: Networks.TESTNET, logger: log.logger });
    const error = await new Promise<unknown>((resolve) => {
      source.streamPayments("0", { wantedAccounts: async () => () => true, onPayments: async () => {}, onError: resolve });
    });
    expect(isFatal(error)).toBe(true);
    expect((error as Error).message).toContain(`serves the network "${Networks.PUBLIC}", not "${Networks.TESTNET}"`);
    await expect(source.getTransaction("0".repeat(64))).rejects.toSatisfy(isFatal);
  });
});

describe("a cursor older than the node's window", () => {
  let small: SimulatedNetwork;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    small = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "", ledgerCloseMs: 50, rpcRetentionLedgers: 50 });
    server = await serve((request) => small.fetch(request), { port: 0, host: "127.0.0.1" });
    small.start();
  });
  afterAll(async () => {
    await small.stop();
    await server.close();
  });

  it("is said once, naming the ledgers lost, and the stream goes on from the oldest ledger the node has", async () => {
    const wallet = walletOn(small, `${server.url}/horizon`);
    const payer = await fundedPayer(wallet);
    const destination = (await fundedPayer(wallet)).publicKey();
    await waitFor(async () => small.latestLedger.sequence, (sequence) => sequence > 70, 10_000);
    const log = captureLog();
    const source = new RpcSource({ url: `${server.url}/rpc`, networkPassphrase: Networks.TESTNET, logger: log.logger, pollMs: 20 });
    const seen: string[] = [];
    const stream = source.streamPayments(cursorBeforeLedger(2), {
      wantedAccounts: async () => (account) => account === destination,
      onPayments: async (batch) => void seen.push(...batch.records.map((r) => r.txHash)),
      onError: (error) => seen.push(`error: ${JSON.stringify(error)} ${String(error)}`),
    });
    try {
      const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(destination, "1")]));
      await waitFor(async () => seen, (hashes) => hashes.includes(sent.hash!) || hashes.some((s) => s.startsWith("error")));
      expect(seen.filter((s) => s.startsWith("error"))).toEqual([]);
      const warnings = log.lines().filter((line) => String(line.message).includes("no longer has ledgers"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: "warn", cursorLedger: 2, lostLedgers: expect.any(Number) });
      expect(Number(warnings[0]!.lostLedgers)).toBeGreaterThan(15);
    } finally {
      stream.close();
    }
  });
});
