// A Stellar RPC node's faults (issue 28): down (its gateway answering 503, or nothing listening on its
// port), slow, answering an error object or a malformed event,
// a node of another network or one that emits no events for classic operations, and a cursor older
// than getEvents' window. The simulated network's test switches (SimulatedNetwork.rpcFaults,
// emitClassicEvents, setRpcRetention) make each; the service is the real one, watching through RPC.
import { Account, Keypair, Memo, Networks, TimeoutInfinite, TransactionBuilder } from "@stellar/stellar-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { type RunningServer, serve } from "../src/server.ts";
import { type CapturedLog, captureLog } from "./support/captured-log.ts";
import { type Wallet, fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { paymentsApi } from "./support/payments-api.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

const RPC_ENV = { LEDGER: "simulated", LEDGER_API: "rpc", SIM_LEDGER_CLOSE_MS: "100", STELLAR_RPC_POLL_MS: "100", STELLAR_RPC_TIMEOUT_MS: "500" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const warningsIn = (log: CapturedLog, from: number) =>
  log
    .lines()
    .slice(from)
    .filter((line) => line.level === "warn");
const completionsOf = (t: TestApp, id: string) => t.database.db.event.count({ where: { resourceId: id, type: "payment.completed" } });

describe("an RPC node that fails for a while", () => {
  let t: TestApp;
  let merchant: Merchant;
  let network: SimulatedNetwork;
  let wallet: Wallet;
  let log: CapturedLog;
  let payments: ReturnType<typeof paymentsApi>;

  beforeAll(async () => {
    log = captureLog("info");
    t = await startTestApp({ workers: true, logger: log.logger, env: RPC_ENV });
    merchant = await t.createMerchant();
    network = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;
    await network.fund(merchant.wallet.publicKey());
    wallet = walletOn(network, `${t.url}/_sim/horizon`);
    payments = paymentsApi(t, merchant.sandboxKey);
  });
  afterEach(() => network.clearRpcFaults());
  afterAll(() => t.close());

  /** Pays a payment in full through the simulated network's Horizon (which the RPC faults leave alone). */
  async function pay(payment: any): Promise<string> {
    const payer = await fundedPayer(wallet);
    const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, payment.amount)]));
    expect(sent.codes).toBeUndefined();
    return sent.hash!;
  }
  const warningsFrom = (from: number) => warningsIn(log, from);
  const completions = (id: string) => completionsOf(t, id);

  /**
   * With the stream running, `fault` starts; a payment paid meanwhile stays pending; once the fault
   * ends it completes, once. Returns the warnings the fault caused.
   */
  async function throughFault(fault: () => void, options: { whileDown?: (from: number) => Promise<void> } = {}) {
    const before = await payments.createPayment({ amount: "1" });
    const during = await payments.createPayment({ amount: "2" });
    await pay(before);
    await payments.waitForStatus(before.id, "completed");
    const from = log.raw.length;
    fault();
    const hash = await pay(during);
    await waitFor(async () => warningsFrom(from), (warnings) => warnings.length > 0, 20_000);
    // Several retries later (backoff from 500 ms): the payment waits, and no warning more.
    await sleep(2_000);
    expect((await payments.readPayment(during.id)).status).toBe("pending");
    await options.whileDown?.(from);
    const warnings = warningsFrom(from);
    network.clearRpcFaults();
    const done = await payments.waitForStatus(during.id, "completed", 45_000);
    expect(done.tx_hash).toBe(hash);
    expect(await completions(before.id)).toBe(1);
    expect(await completions(during.id)).toBe(1);
    expect(log.lines().slice(from).some((line) => line.level === "info" && String(line.message).endsWith(" available again"))).toBe(true);
    return warnings;
  }

  it("down (its gateway answers 503): one warning, a summary a minute later, then the payment made meanwhile completes once", { timeout: 90_000 }, async () => {
    const warnings = await throughFault(() => (network.rpcFaults.unavailable = true), {
      whileDown: async (faultFrom) => {
        expect(warningsFrom(faultFrom)).toHaveLength(1);
        // A minute later on the service's clock: one summary with the retries counted.
        const from = log.raw.length;
        t.clock.advance(61_000);
        const [summary] = await waitFor(async () => warningsFrom(from), (lines) => lines.length > 0, 20_000);
        expect(summary!.message).toMatch(/^Stellar RPC \S+ still unavailable: \d+ retries since \d{4}-/);
      },
    });
    expect(warnings[0]).toMatchObject({ message: expect.stringMatching(/^Stellar RPC http:\/\/127\.0\.0\.1:\d+\/_sim\/rpc unavailable; retrying$/), reason: expect.stringContaining("503") });
    expect(warnings).toHaveLength(2);
  });

  it("answering an error object: one warning naming it, then the payment made meanwhile completes once", { timeout: 90_000 }, async () => {
    const warnings = await throughFault(() => (network.rpcFaults.error = { code: -32603, message: "database is locked" }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ message: expect.stringContaining("unavailable; retrying"), reason: expect.stringContaining("database is locked") });
  });

  it("slow: an answer within STELLAR_RPC_TIMEOUT_MS is waited for; slower ones fail, are retried, and the payment completes once", { timeout: 90_000 }, async () => {
    const from = log.raw.length;
    network.rpcFaults.delayMs = 200;
    const slow = await payments.createPayment({ amount: "1" });
    await pay(slow);
    await payments.waitForStatus(slow.id, "completed", 20_000);
    expect(warningsFrom(from)).toEqual([]);
    const warnings = await throughFault(() => (network.rpcFaults.delayMs = 1_000));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ reason: expect.stringContaining("timeout of 500ms exceeded") });
  });

  it("answering a malformed event: it is skipped with a warning naming it, and the rest of the page completes", async () => {
    const [spoiled, fine] = [await payments.createPayment({ amount: "1" }), await payments.createPayment({ amount: "2" })];
    const payer = await fundedPayer(wallet);
    const envelope = await signedTransaction(wallet, payer, [
      payOp(spoiled.payment_instructions.muxed_destination, "1"),
      payOp(fine.payment_instructions.muxed_destination, "2"),
    ]);
    const hash = TransactionBuilder.fromXDR(envelope, Networks.TESTNET).hash().toString("hex");
    network.rpcFaults.malformedEvents = (event) => event.txHash === hash && event.operationIndex === 0;
    const from = log.raw.length;
    await submit(wallet, envelope);
    await payments.waitForStatus(fine.id, "completed");
    const skipped = warningsFrom(from).filter((line) => String(line.message).startsWith("Stellar RPC event not understood"));
    expect(skipped).toEqual([expect.objectContaining({ event: expect.stringMatching(/^\d{19}-\d{10}$/), tx: hash })]);
    // Its payment is not completed by what could not be read, and the stream goes on after it.
    expect(await payments.readPayment(spoiled.id)).toMatchObject({ status: "pending", amount_received: "0.0000000" });
    const later = await payments.createPayment({ amount: "1" });
    await pay(later);
    await payments.waitForStatus(later.id, "completed");
  });

  it("with a cursor older than getEvents' window: one warning naming the gap, and the payments in it are read from getTransactions", { timeout: 90_000 }, async () => {
    const paidWhileDown = await payments.createPayment({ amount: "1" });
    // A node that keeps 30 ledgers of events and many more of transactions.
    network.setRpcRetention({ ledgers: 100_000, eventLedgers: 30 });
    try {
      await t.app.ledger.streamer.stop();
      const from = log.raw.length;
      const hash = await pay(paidWhileDown);
      const paidIn = network.latestLedger.sequence;
      await waitFor(async () => network.latestLedger.sequence, (sequence) => sequence > paidIn + 45, 30_000);
      t.app.ledger.streamer.start();
      const done = await payments.waitForStatus(paidWhileDown.id, "completed", 30_000);
      expect(done.tx_hash).toBe(hash);
      expect(await completions(paidWhileDown.id)).toBe(1);
      const gap = warningsFrom(from).filter((line) => String(line.message).includes("older than getEvents' window"));
      expect(gap).toHaveLength(1);
      expect(gap[0]).toMatchObject({ lostLedgers: 0, cursorLedger: expect.any(Number), oldestLedger: expect.any(Number) });
      expect(Number(gap[0]!.gapLedgers)).toBeGreaterThan(10);
      expect(gap[0]!.message).toMatch(/the saved cursor \(ledger \d+\) is \d+ ledgers older than getEvents' window \(from ledger \d+\); ledgers \d+-\d+ were read from getTransactions/);
    } finally {
      network.setRpcRetention({ ledgers: 120_960 });
    }
  });
});

describe("an RPC node that cannot serve the network", () => {
  let t: TestApp;
  let merchant: Merchant;
  let log: CapturedLog;
  beforeAll(async () => {
    log = captureLog("info");
    t = await startTestApp({ workers: true, logger: log.logger, env: RPC_ENV });
    merchant = await t.createMerchant();
  });
  afterAll(() => t.close());

  it("stops that network with a clear error shown on /ready: a node of another network, and one that emits no classic events", { timeout: 60_000 }, async () => {
    // Sandbox: a node without EMIT_CLASSIC_EVENTS, with a recent classic payment that shows it.
    const testnet = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;
    await testnet.fund(merchant.wallet.publicKey());
    testnet.emitClassicEvents = false;
    const testWallet = walletOn(testnet, `${t.url}/_sim/horizon`);
    const payer = await fundedPayer(testWallet);
    await submit(testWallet, await signedTransaction(testWallet, payer, [payOp(merchant.wallet.publicKey(), "1")], { memo: Memo.text("probe") }));
    // Production: a node whose getNetwork names the test network.
    const publicNetwork = t.app.ledger.simulatedNetwork(Networks.PUBLIC)!;
    publicNetwork.rpcFaults.otherNetwork = Networks.TESTNET;

    // A payment on each makes the service watch both.
    for (const key of [merchant.sandboxKey, merchant.liveKey]) {
      expect((await t.api("POST", "/payments", { key, body: { amount: "1" } })).status).toBe(201);
    }
    await t.app.ledger.streamer.refresh();
    const ready = async () => (await (await fetch(`${t.url}/ready`)).json()) as any;
    const { networks } = await waitFor(ready, (body) => body.networks?.every((n: any) => n.stopped !== undefined), 20_000);
    expect(networks).toEqual([
      { network: "sandbox", api: "Stellar RPC", path_payments: false, stopped: expect.stringContaining("emits no events for classic operations (stellar-core's EMIT_CLASSIC_EVENTS is off") },
      { network: "production", api: "Stellar RPC", path_payments: false, stopped: expect.stringContaining(`serves the network "${Networks.TESTNET}", not "${Networks.PUBLIC}": this network is stopped`) },
    ]);
    // Said once each, as errors; not retried.
    const errors = log.lines().filter((line) => line.level === "error").map((line) => line.message);
    expect(errors.sort()).toEqual(networks.map((n: any) => n.stopped).sort());
    await sleep(1_500);
    expect(log.lines().filter((line) => line.level === "error")).toHaveLength(2);
  });
});

describe("an RPC node whose port refuses connections (its process stopped), then listens again", () => {
  let network: SimulatedNetwork;
  let node: RunningServer;
  let t: TestApp;
  let log: CapturedLog;
  let payments: ReturnType<typeof paymentsApi>;

  beforeAll(async () => {
    // The node on a server of its own, which the test stops and starts again on the same port.
    network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "", ledgerCloseMs: 100 });
    node = await serve((request) => network.fetch(request), { port: 0, host: "127.0.0.1" });
    network.start();
    log = captureLog("info");
    t = await startTestApp({ workers: true, logger: log.logger, env: { LEDGER: "horizon", STELLAR_RPC_TESTNET_URL: `${node.url}/rpc`, STELLAR_RPC_POLL_MS: "100" } });
    const merchant = await t.createMerchant();
    await network.fund(merchant.wallet.publicKey());
    payments = paymentsApi(t, merchant.sandboxKey);
  });
  afterAll(async () => {
    await t?.close();
    await node?.close();
    await network?.stop();
  });

  /** Pays a payment in full, straight into the network (its HTTP side may be down), once its ledger closes. */
  async function pay(payment: any): Promise<string> {
    const payer = Keypair.random();
    await network.fund(payer.publicKey());
    const tx = new TransactionBuilder(new Account(payer.publicKey(), network.sequence(payer.publicKey())!), { fee: "100", networkPassphrase: Networks.TESTNET })
      .addOperation(payOp(payment.payment_instructions.muxed_destination, payment.amount))
      .setTimeout(TimeoutInfinite)
      .build();
    tx.sign(payer);
    const result = await network.submitTransaction(tx);
    expect(result).toMatchObject({ status: "included", successful: true });
    return tx.hash().toString("hex");
  }
  const warningsFrom = (from: number) => warningsIn(log, from);
  const completions = (id: string) => completionsOf(t, id);

  it("one warning, a summary a minute later, and once it listens again the payment made meanwhile completes once", { timeout: 90_000 }, async () => {
    const before = await payments.createPayment({ amount: "1" });
    const during = await payments.createPayment({ amount: "2" });
    await pay(before);
    await payments.waitForStatus(before.id, "completed", 20_000);
    const port = Number(new URL(node.url).port);
    const from = log.raw.length;
    await node.close();
    const hash = await pay(during);
    const [warning] = await waitFor(async () => warningsFrom(from), (warnings) => warnings.length > 0, 20_000);
    // Its reason: ECONNREFUSED, or the reset of a poll the close cut short.
    expect(warning).toMatchObject({ message: `Stellar RPC ${node.url}/rpc unavailable; retrying`, reason: expect.stringMatching(/ECONNREFUSED|ECONNRESET|socket hang up/) });
    // Retries later (backoff from 500 ms), no warning more; a minute later on the service's clock, one summary.
    await sleep(1_500);
    expect(warningsFrom(from)).toHaveLength(1);
    t.clock.advance(61_000);
    await waitFor(async () => warningsFrom(from), (warnings) => warnings.length > 1, 20_000);
    expect(warningsFrom(from)[1]).toMatchObject({ message: expect.stringMatching(/^Stellar RPC \S+ still unavailable: \d+ retries since \d{4}-/), reason: expect.stringContaining("ECONNREFUSED") });
    expect((await payments.readPayment(during.id)).status).toBe("pending");

    node = await serve((request) => network.fetch(request), { port, host: "127.0.0.1" });
    const done = await payments.waitForStatus(during.id, "completed", 45_000);
    expect(done).toMatchObject({ tx_hash: hash, amount_received: "2.0000000" });
    expect(await completions(before.id)).toBe(1);
    expect(await completions(during.id)).toBe(1);
    expect(log.lines().slice(from).some((line) => line.level === "info" && String(line.message).endsWith(" available again"))).toBe(true);
    expect(warningsFrom(from)).toHaveLength(2);
  });
});
