// The simulated Stellar network, served over real HTTP and driven by the real SDK: friendbot,
// accounts, signed payments, memos, muxed accounts, trustlines, failures with Horizon's result
// codes, fee bumps, path payments through the order book, paging and SSE streaming.
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  Account,
  AccountRequiresMemoError,
  Asset,
  Horizon,
  Keypair,
  Memo,
  MuxedAccount,
  Networks,
  Operation,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { createServerAdapter } from "@whatwg-node/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerSummary, SimulatedNetwork } from "../../src/ledger/simulated/index.ts";

const PASSPHRASE = Networks.TESTNET;

let net: SimulatedNetwork;
let server: http.Server;
let origin: string;
let horizon: Horizon.Server;

beforeAll(async () => {
  net = new SimulatedNetwork({ networkPassphrase: PASSPHRASE, basePath: "/_sim", ledgerCloseMs: 20, keepAliveMs: 200 });
  net.start();
  server = http.createServer(createServerAdapter((request: Request) => net.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  horizon = new Horizon.Server(`${origin}/_sim/horizon`, { allowHttp: true });
});

afterAll(async () => {
  await net.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// ---------------------------------------------------------------------------------------------
// Helpers

async function waitFor(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function funded(xlm = "10000"): Promise<Keypair> {
  const keypair = Keypair.random();
  await net.fund(keypair.publicKey(), xlm);
  return keypair;
}

interface BuildOptions {
  memo?: Memo;
  passphrase?: string;
  /** Sign with these instead of the source. */
  signers?: Keypair[];
  /** Use this sequence number instead of the account's (the builder adds 1). */
  sequence?: string;
  timebounds?: { minTime: number; maxTime: number };
}

async function build(source: Keypair, operations: xdr.Operation[], options: BuildOptions = {}): Promise<Transaction> {
  const loaded = await horizon.loadAccount(source.publicKey());
  const account = options.sequence ? new Account(source.publicKey(), options.sequence) : loaded;
  const builder = new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: options.passphrase ?? PASSPHRASE,
    ...(options.timebounds ? { timebounds: options.timebounds } : {}),
  });
  for (const op of operations) builder.addOperation(op);
  if (options.memo) builder.addMemo(options.memo);
  if (!options.timebounds) builder.setTimeout(30);
  const tx = builder.build();
  for (const signer of options.signers ?? [source]) tx.sign(signer);
  return tx;
}

const pay = (destination: string, amount: string, asset = Asset.native()) => Operation.payment({ destination, asset, amount });

/**
 * The SDK throws on HTTP errors; this returns what Horizon answered. submitTransaction rethrows the
 * HTTP client's error (`response.data` is the body); call builders wrap the body as `response`.
 */
async function rejection(promise: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await promise;
  } catch (error: any) {
    if (!error?.response) throw error;
    const data = error.response.data ?? error.response;
    return { status: error.response.status ?? data.status, data };
  }
  throw new Error("expected the request to fail");
}

const resultOf = (resultXdr: string) => xdr.TransactionResult.fromXDR(resultXdr, "base64");

const payments = async (account: string, query = "") =>
  (await (await fetch(`${origin}/_sim/horizon/accounts/${account}/payments${query}`)).json()) as any;

// ---------------------------------------------------------------------------------------------

describe("friendbot and accounts", () => {
  it("funds a new account with 10,000 XLM through a real createAccount, once", async () => {
    const keypair = Keypair.random();
    const response = await fetch(`${origin}/_sim/friendbot?addr=${keypair.publicKey()}`);
    expect(response.status).toBe(200);
    const record = (await response.json()) as any;
    expect(record.successful).toBe(true);
    expect(record.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.source_account).toBe(net.rootKeypair.publicKey());
    const envelope = TransactionBuilder.fromXDR(record.envelope_xdr, PASSPHRASE) as Transaction;
    expect(envelope.operations[0]).toMatchObject({ type: "createAccount", destination: keypair.publicKey(), startingBalance: "10000.0000000" });

    const account = await horizon.loadAccount(keypair.publicKey());
    expect(account.balances).toEqual([
      { balance: "10000.0000000", buying_liabilities: "0.0000000", selling_liabilities: "0.0000000", asset_type: "native" },
    ]);
    // A new account's sequence number is its creation ledger << 32, as on Stellar.
    expect(account.sequence).toBe((BigInt(record.ledger) << 32n).toString());

    // The SDK's friendbot builder (Horizon's own URL) reaches it too, and refuses a second funding.
    const again = await rejection(horizon.friendbot(keypair.publicKey()).call());
    expect(again.status).toBe(400);
    expect(again.data.extras.reason).toMatch(/^createAccountAlreadyExist/);
    expect(net.balance(keypair.publicKey())).toBe("10000.0000000");
  });

  it("serves the account record the SDK's loadAccount and SEP-29 check need", async () => {
    const keypair = await funded();
    const response = await fetch(`${origin}/_sim/horizon/accounts/${keypair.publicKey()}`);
    const record = (await response.json()) as any;
    expect(record).toMatchObject({
      id: keypair.publicKey(),
      account_id: keypair.publicKey(),
      subentry_count: 0,
      thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
      signers: [{ key: keypair.publicKey(), weight: 1, type: "ed25519_public_key" }],
      data: {},
    });
    expect(typeof record.sequence).toBe("string");
    expect(record._links.data).toEqual({ href: `${origin}/_sim/horizon/accounts/${keypair.publicKey()}/data/{key}`, templated: true });

    const missing = await fetch(`${origin}/_sim/horizon/accounts/${Keypair.random().publicKey()}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ title: "Resource Missing", status: 404, type: "https://stellar.org/horizon-errors/not_found" });
    await expect(horizon.loadAccount(Keypair.random().publicKey())).rejects.toThrow(/Not Found/);
  });

  it("answers the root, fee stats and unknown paths like Horizon", async () => {
    const root = await horizon.root();
    expect(root.network_passphrase).toBe(PASSPHRASE);
    expect(root.history_latest_ledger).toBeGreaterThan(1);
    expect(root.history_latest_ledger).toBeLessThanOrEqual(net.latestLedger.sequence);
    const fees = await horizon.feeStats();
    expect(fees.last_ledger_base_fee).toBe("100");
    expect(fees.fee_charged.p50).toBe("100");
    expect(fees.max_fee.mode).toBe("100");
    expect(await horizon.fetchBaseFee()).toBe(100);

    const unknown = await fetch(`${origin}/_sim/horizon/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).status).toBe(404);
    expect((await fetch(`${origin}/elsewhere`)).status).toBe(404);
  });
});

describe("payments", () => {
  it("moves XLM, charges 100 stroops per operation and records the transaction", async () => {
    const payer = await funded();
    const payee = await funded();
    const tx = await build(payer, [pay(payee.publicKey(), "25.5")]);
    const response = await horizon.submitTransaction(tx);

    expect(response.successful).toBe(true);
    expect(response.hash).toBe(tx.hash().toString("hex"));
    expect(net.balance(payer.publicKey())).toBe("9974.4999900");
    expect(net.balance(payee.publicKey())).toBe("10025.5000000");

    const result = resultOf(response.result_xdr);
    expect(result.feeCharged().toString()).toBe("100");
    expect(result.result().switch().name).toBe("txSuccess");
    expect(result.result().results()[0]!.tr().paymentResult().switch().name).toBe("paymentSuccess");

    const record = await horizon.transactions().transaction(response.hash).call();
    expect(record).toMatchObject({
      hash: response.hash,
      successful: true,
      source_account: payer.publicKey(),
      fee_charged: "100",
      max_fee: "100",
      operation_count: 1,
      memo_type: "none",
      envelope_xdr: tx.toEnvelope().toXDR("base64"),
      result_xdr: response.result_xdr,
    });
    expect(record.ledger_attr).toBe(response.ledger);

    const page = await horizon.payments().forAccount(payee.publicKey()).order("desc").limit(1).call();
    expect(page.records[0]).toMatchObject({
      type: "payment",
      type_i: 1,
      from: payer.publicKey(),
      to: payee.publicKey(),
      asset_type: "native",
      amount: "25.5000000",
      transaction_hash: response.hash,
      transaction_successful: true,
    });

    // Replaying the same signed transaction fails: its sequence number has been used.
    const replay = await rejection(horizon.submitTransaction(tx));
    expect(replay.status).toBe(400);
    expect(replay.data.extras.result_codes).toEqual({ transaction: "tx_bad_seq" });
  });

  it("records text, id and hash memos as Horizon shows them", async () => {
    const payer = await funded();
    const payee = await funded();
    const hashHex = "a1".repeat(32);
    const memos: [Memo, Record<string, string>][] = [
      [Memo.text("order-42"), { memo_type: "text", memo: "order-42" }],
      [Memo.id("18446744073709551615"), { memo_type: "id", memo: "18446744073709551615" }],
      [Memo.hash(hashHex), { memo_type: "hash", memo: Buffer.from(hashHex, "hex").toString("base64") }],
    ];
    for (const [memo, expected] of memos) {
      const response = await horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "1")], { memo }));
      const record = await horizon.transactions().transaction(response.hash).call();
      expect(record).toMatchObject(expected);
    }
    // With join=transactions each payment carries its transaction, memo included.
    const page = await payments(payee.publicKey(), "?join=transactions&limit=10");
    const memosSeen = page._embedded.records.filter((r: any) => r.type === "payment").map((r: any) => r.transaction.memo);
    expect(memosSeen).toEqual(["order-42", "18446744073709551615", Buffer.from(hashHex, "hex").toString("base64")]);
  });

  it("credits muxed destinations to the base account and keeps the muxed address and id", async () => {
    const payer = await funded();
    const merchant = await funded();
    const muxedId = "9007199254740993"; // above 2^53: must survive without floats
    const muxed = new MuxedAccount(new Account(merchant.publicKey(), "0"), muxedId);
    await horizon.submitTransaction(await build(payer, [pay(muxed.accountId(), "3")]));
    expect(net.balance(merchant.publicKey())).toBe("10003.0000000");

    // And from a muxed source account.
    const payerMuxed = new MuxedAccount(await horizon.loadAccount(payer.publicKey()), "42");
    const tx = new TransactionBuilder(payerMuxed, { fee: "100", networkPassphrase: PASSPHRASE })
      .addOperation(pay(merchant.publicKey(), "2"))
      .setTimeout(30)
      .build();
    tx.sign(payer);
    const response = await horizon.submitTransaction(tx);
    expect(net.balance(payer.publicKey())).toBe("9994.9999800");

    const records = (await payments(merchant.publicKey(), "?order=desc&limit=2"))._embedded.records;
    expect(records[1]).toMatchObject({ to: merchant.publicKey(), to_muxed: muxed.accountId(), to_muxed_id: muxedId, amount: "3.0000000" });
    expect(records[0]).toMatchObject({ from: payer.publicKey(), from_muxed: payerMuxed.accountId(), from_muxed_id: "42", to: merchant.publicKey() });
    expect(records[0].to_muxed).toBeUndefined();
    const txRecord = await horizon.transactions().transaction(response.hash).call();
    expect(txRecord).toMatchObject({ source_account: payer.publicKey(), account_muxed_id: "42" });
  });

  it("issues a credit asset over a trustline created by changeTrust", async () => {
    const issuer = Keypair.random();
    const usdc = net.createAsset("USDC", issuer);
    const customer = await funded();

    await horizon.submitTransaction(await build(customer, [Operation.changeTrust({ asset: usdc, limit: "1000" })]));
    await horizon.submitTransaction(await build(issuer, [pay(customer.publicKey(), "100", usdc)]));

    const account = await horizon.loadAccount(customer.publicKey());
    expect(account.subentry_count).toBe(1);
    expect(account.balances[0]).toMatchObject({
      asset_type: "credit_alphanum4",
      asset_code: "USDC",
      asset_issuer: issuer.publicKey(),
      balance: "100.0000000",
      limit: "1000.0000000",
    });
    expect(account.balances[1]).toMatchObject({ asset_type: "native", balance: "9999.9999900" });

    // Sending it on needs the recipient's trustline, and stays within its limit.
    const other = await funded();
    await horizon.submitTransaction(await build(other, [Operation.changeTrust({ asset: usdc, limit: "50" })]));
    const tooMuch = await rejection(horizon.submitTransaction(await build(customer, [pay(other.publicKey(), "60", usdc)])));
    expect(tooMuch.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_line_full"] });
    await horizon.submitTransaction(await build(customer, [pay(other.publicKey(), "40", usdc)]));
    expect(net.balance(customer.publicKey(), usdc)).toBe("60.0000000");
    expect(net.balance(other.publicKey(), usdc)).toBe("40.0000000");
  });
});

describe("failures", () => {
  it("fails a payment without trustline with op_no_trust, consuming only fee and sequence", async () => {
    const issuer = Keypair.random();
    const eurc = net.createAsset("EURC", issuer);
    const payer = await funded();
    net.setTrustline(payer.publicKey(), eurc, { balance: "10" });
    const payee = await funded();
    const sequenceBefore = net.sequence(payer.publicKey())!;

    const tx = await build(payer, [pay(payee.publicKey(), "5", eurc)]);
    const failure = await rejection(horizon.submitTransaction(tx));
    expect(failure.status).toBe(400);
    expect(failure.data.type).toBe("https://stellar.org/horizon-errors/transaction_failed");
    expect(failure.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_no_trust"] });
    expect(failure.data.extras.envelope_xdr).toBe(tx.toEnvelope().toXDR("base64"));
    const result = resultOf(failure.data.extras.result_xdr);
    expect(result.result().switch().name).toBe("txFailed");
    expect(result.result().results()[0]!.tr().paymentResult().switch().name).toBe("paymentNoTrust");

    expect(net.balance(payer.publicKey())).toBe("9999.9999900");
    expect(net.balance(payer.publicKey(), eurc)).toBe("10.0000000");
    expect(net.sequence(payer.publicKey())).toBe((BigInt(sequenceBefore) + 1n).toString());

    const hash = tx.hash().toString("hex");
    const record = await horizon.transactions().transaction(hash).call();
    expect(record.successful).toBe(false);
    expect(record.fee_charged).toBe("100");
    // Failed payments are hidden from /payments unless include_failed=true.
    expect((await payments(payee.publicKey()))._embedded.records.map((r: any) => r.type)).toEqual(["create_account"]);
    const withFailed = (await payments(payee.publicKey(), "?include_failed=true"))._embedded.records;
    expect(withFailed[1]).toMatchObject({ transaction_hash: hash, transaction_successful: false, amount: "5.0000000" });
  });

  it("rejects a bad sequence number, a foreign network's signature and a wrong signer, consuming nothing", async () => {
    const payer = await funded();
    const payee = await funded();
    const sequence = net.sequence(payer.publicKey())!;

    const badSeq = await rejection(horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "1")], { sequence: (BigInt(sequence) + 5n).toString() })));
    expect(badSeq.status).toBe(400);
    expect(badSeq.data.extras.result_codes).toEqual({ transaction: "tx_bad_seq" });
    expect(resultOf(badSeq.data.extras.result_xdr).result().switch().name).toBe("txBadSeq");

    // Signed for the public network: the hash differs, so the signature does not verify here.
    const foreign = await rejection(horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "1")], { passphrase: Networks.PUBLIC })));
    expect(foreign.data.extras.result_codes).toEqual({ transaction: "tx_bad_auth" });

    const wrongSigner = await rejection(horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "1")], { signers: [Keypair.random()] })));
    expect(wrongSigner.data.extras.result_codes).toEqual({ transaction: "tx_bad_auth" });

    const expired = await rejection(
      horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "1")], { timebounds: { minTime: 0, maxTime: Math.floor(Date.now() / 1000) - 60 } })),
    );
    expect(expired.data.extras.result_codes).toEqual({ transaction: "tx_too_late" });

    expect(net.balance(payer.publicKey())).toBe("10000.0000000");
    expect(net.sequence(payer.publicKey())).toBe(sequence);
  });

  it("fails a payment beyond the available balance (reserve kept) with op_underfunded", async () => {
    const payer = await funded("2");
    const payee = await funded();
    const failure = await rejection(horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "1.5")])));
    expect(failure.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_underfunded"] });
    expect(net.balance(payer.publicKey())).toBe("1.9999900");
    // What is above the 1 XLM reserve can be spent; then not even a fee can be paid.
    await horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "0.9999800")]));
    expect(net.balance(payer.publicKey())).toBe("1.0000000");
    const broke = await rejection(horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), "0.0000001")])));
    expect(broke.data.extras.result_codes).toEqual({ transaction: "tx_insufficient_balance" });

    // A trustline raises the reserve by 0.5 XLM: with 1.4 XLM that is op_low_reserve.
    const small = await funded("1.4");
    const usdc = net.createAsset("USDC", Keypair.random());
    const lowReserve = await rejection(horizon.submitTransaction(await build(small, [Operation.changeTrust({ asset: usdc })])));
    expect(lowReserve.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_low_reserve"] });
  });

  it("reports each operation's code, and rejects malformed operations without charging", async () => {
    const payer = await funded();
    const payee = await funded();
    const unknownIssuer = new Asset("GHOST", Keypair.random().publicKey());
    const failure = await rejection(
      horizon.submitTransaction(
        await build(payer, [
          pay(payee.publicKey(), "1"),
          Operation.createAccount({ destination: payee.publicKey(), startingBalance: "5" }),
          Operation.changeTrust({ asset: unknownIssuer }),
          pay(Keypair.random().publicKey(), "1"),
        ]),
      ),
    );
    expect(failure.data.extras.result_codes).toEqual({
      transaction: "tx_failed",
      operations: ["op_success", "op_already_exists", "op_no_issuer", "op_no_destination"],
    });
    // All or nothing: the successful first payment was rolled back; 4 operations cost 400 stroops.
    expect(net.balance(payer.publicKey())).toBe("9999.9999600");
    expect(net.balance(payee.publicKey())).toBe("10000.0000000");

    const sequence = net.sequence(payer.publicKey());
    const malformed = await rejection(
      horizon.submitTransaction(await build(payer, [Operation.createAccount({ destination: payer.publicKey(), startingBalance: "1" })])),
    );
    expect(malformed.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_malformed"] });
    expect(net.sequence(payer.publicKey())).toBe(sequence);
    expect(net.balance(payer.publicKey())).toBe("9999.9999600");
  });

  it("answers malformed XDR with 400 tx_malformed and never crashes", async () => {
    const response = await fetch(`${origin}/_sim/horizon/transactions`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "tx=bm90IHhkcg%3D%3D",
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.type).toBe("https://stellar.org/horizon-errors/transaction_malformed");
    expect(body.extras.result_codes).toEqual({ transaction: "tx_malformed" });

    const missing = await fetch(`${origin}/_sim/horizon/transactions`, { method: "POST", body: "" });
    expect(missing.status).toBe(400);
    const badCursor = await fetch(`${origin}/_sim/horizon/accounts/${net.rootKeypair.publicKey()}/payments?cursor=abc`);
    expect(badCursor.status).toBe(400);
    expect(((await badCursor.json()) as any).extras.invalid_field).toBe("cursor");
  });

  it("lets a fee-bump sponsor pay the fee of someone else's transaction", async () => {
    const payer = await funded();
    const sponsor = await funded();
    const payee = await funded();
    const inner = await build(payer, [pay(payee.publicKey(), "10")]);
    const feeBump = TransactionBuilder.buildFeeBumpTransaction(sponsor, "100", inner, PASSPHRASE);
    feeBump.sign(sponsor);

    const response = await horizon.submitTransaction(feeBump);
    expect(response.successful).toBe(true);
    expect(resultOf(response.result_xdr).result().switch().name).toBe("txFeeBumpInnerSuccess");
    expect(net.balance(payer.publicKey())).toBe("9990.0000000");
    expect(net.balance(sponsor.publicKey())).toBe("9999.9999800");
    const record = await horizon.transactions().transaction(inner.hash().toString("hex")).call();
    expect(record).toMatchObject({ fee_account: sponsor.publicKey(), source_account: payer.publicKey(), fee_charged: "200" });
  });

  it("enforces SEP-29: the SDK refuses a memo-less payment to an account that requires a memo", async () => {
    const exchange = await funded();
    const payer = await funded();
    await horizon.submitTransaction(await build(exchange, [Operation.manageData({ name: "config.memo_required", value: "1" })]));
    const data = await fetch(`${origin}/_sim/horizon/accounts/${exchange.publicKey()}/data/config.memo_required`);
    expect(await data.json()).toEqual({ value: "MQ==" });
    expect((await fetch(`${origin}/_sim/horizon/accounts/${exchange.publicKey()}/data/nope`)).status).toBe(404);

    await expect(horizon.submitTransaction(await build(payer, [pay(exchange.publicKey(), "1")]))).rejects.toBeInstanceOf(AccountRequiresMemoError);
    const withMemo = await horizon.submitTransaction(await build(payer, [pay(exchange.publicKey(), "1")], { memo: Memo.id("7") }));
    expect(withMemo.successful).toBe(true);
  });
});

describe("path payments through the order book", () => {
  it("quotes and executes strict-receive paths exactly, crossing the best offers first", async () => {
    const usdc = net.createAsset("USDP", Keypair.random());
    const merchant = await funded();
    net.setTrustline(merchant.publicKey(), usdc);
    const customer = await funded();
    // 10 USDP at 9 XLM each, then 1000 at 10 XLM: 25 USDP cost 10*9 + 15*10 = 240 XLM.
    net.addOffer({ selling: usdc, buying: Asset.native(), price: "9", amount: "10" });
    const main = net.addOffer({ selling: usdc, buying: Asset.native(), price: "10/1", amount: "1000" });

    const paths = await horizon.strictReceivePaths([Asset.native()], usdc, "25").call();
    expect(paths.records).toEqual([
      {
        source_asset_type: "native",
        source_amount: "240.0000000",
        destination_asset_type: "credit_alphanum4",
        destination_asset_code: "USDP",
        destination_asset_issuer: usdc.getIssuer(),
        destination_amount: "25.0000000",
        path: [],
      },
    ]);
    const bySourceAccount = await horizon.strictReceivePaths(customer.publicKey(), usdc, "25").call();
    expect(bySourceAccount.records.map((r) => [r.source_asset_type, r.source_amount])).toEqual([["native", "240.0000000"]]);

    const tx = await build(customer, [
      Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax: "240", destination: merchant.publicKey(), destAsset: usdc, destAmount: "25", path: [] }),
    ]);
    const response = await horizon.submitTransaction(tx);
    expect(net.balance(merchant.publicKey(), usdc)).toBe("25.0000000");
    expect(net.balance(customer.publicKey())).toBe("9759.9999900");
    const success = resultOf(response.result_xdr).result().results()[0]!.tr().pathPaymentStrictReceiveResult().success();
    expect(success.offers()).toHaveLength(2);
    expect(success.last().amount().toString()).toBe("250000000");
    expect(net.offers().filter((o) => o.selling.equals(usdc)).map((o) => [o.id, o.amount])).toEqual([[main.id, "985.0000000"]]);

    const record = (await payments(merchant.publicKey(), "?order=desc&limit=1"))._embedded.records[0];
    expect(record).toMatchObject({
      type: "path_payment_strict_receive",
      type_i: 2,
      amount: "25.0000000",
      asset_code: "USDP",
      source_amount: "240.0000000",
      source_max: "240.0000000",
      source_asset_type: "native",
      path: [],
      to: merchant.publicKey(),
    });

    const strictReceive = (sendMax: string, destAmount: string) =>
      Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax, destination: merchant.publicKey(), destAsset: usdc, destAmount, path: [] });
    const overMax = await rejection(horizon.submitTransaction(await build(customer, [strictReceive("249.9999999", "25")])));
    expect(overMax.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_over_source_max"] });
    const tooFew = await rejection(horizon.submitTransaction(await build(customer, [strictReceive("100000", "5000")])));
    expect(tooFew.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_too_few_offers"] });
    // Failed path payments leave the book as it was.
    expect(net.offers().find((o) => o.id === main.id)?.amount).toBe("985.0000000");
  });

  it("finds and pays one-hop paths through XLM, and strict-send paths", async () => {
    const usd = net.createAsset("USDH", Keypair.random());
    const eur = net.createAsset("EURH", Keypair.random());
    net.addOffer({ selling: usd, buying: Asset.native(), price: "10", amount: "1000" }); // 1 USDH = 10 XLM
    net.addOffer({ selling: Asset.native(), buying: eur, price: "1/11", amount: "100000" }); // 1 XLM = 1/11 EURH
    const merchant = await funded();
    net.setTrustline(merchant.publicKey(), usd);
    const customer = await funded();
    net.setTrustline(customer.publicKey(), eur, { balance: "50" });

    // 10 USDH = 100 XLM = 100/11 EURH, rounded up to the stroop in the offer's favour.
    const paths = await horizon.strictReceivePaths([eur], usd, "10").call();
    expect(paths.records).toEqual([
      expect.objectContaining({ source_asset_code: "EURH", source_amount: "9.0909091", destination_amount: "10.0000000", path: [{ asset_type: "native" }] }),
    ]);
    await horizon.submitTransaction(
      await build(customer, [
        Operation.pathPaymentStrictReceive({ sendAsset: eur, sendMax: "9.0909091", destination: merchant.publicKey(), destAsset: usd, destAmount: "10", path: [Asset.native()] }),
      ]),
    );
    expect(net.balance(merchant.publicKey(), usd)).toBe("10.0000000");
    expect(net.balance(customer.publicKey(), eur)).toBe("40.9090909");

    const sendPaths = await horizon.strictSendPaths(Asset.native(), "50", [usd]).call();
    expect(sendPaths.records[0]).toMatchObject({ source_amount: "50.0000000", destination_amount: "5.0000000", path: [] });
    const underMin = await rejection(
      horizon.submitTransaction(
        await build(customer, [Operation.pathPaymentStrictSend({ sendAsset: Asset.native(), sendAmount: "50", destination: merchant.publicKey(), destAsset: usd, destMin: "5.0000001", path: [] })]),
      ),
    );
    expect(underMin.data.extras.result_codes).toEqual({ transaction: "tx_failed", operations: ["op_under_dest_min"] });
    await horizon.submitTransaction(
      await build(customer, [Operation.pathPaymentStrictSend({ sendAsset: Asset.native(), sendAmount: "50", destination: merchant.publicKey(), destAsset: usd, destMin: "5", path: [] })]),
    );
    expect(net.balance(merchant.publicKey(), usd)).toBe("15.0000000");
  });
});

describe("paging and streaming", () => {
  it("pages payments with exclusive cursors in both orders", async () => {
    const payer = await funded();
    const payee = await funded();
    for (const amount of ["1", "2", "3"]) await horizon.submitTransaction(await build(payer, [pay(payee.publicKey(), amount)]));

    const first = await horizon.payments().forAccount(payee.publicKey()).limit(2).call();
    expect(first.records.map((r: any) => r.amount ?? r.starting_balance)).toEqual(["10000.0000000", "1.0000000"]);
    const second = await first.next();
    expect(second.records.map((r: any) => r.amount)).toEqual(["2.0000000", "3.0000000"]);
    expect((await second.next()).records).toEqual([]);

    const tokens = [...first.records, ...second.records].map((r) => BigInt(r.paging_token));
    expect(tokens).toEqual([...tokens].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(tokens).size).toBe(4);

    const afterFirst = await horizon.payments().forAccount(payee.publicKey()).cursor(first.records[1]!.paging_token).call();
    expect(afterFirst.records.map((r: any) => r.amount)).toEqual(["2.0000000", "3.0000000"]);
    const descending = await horizon.payments().forAccount(payee.publicKey()).order("desc").cursor(second.records[1]!.paging_token).call();
    expect(descending.records.map((r: any) => r.amount ?? r.starting_balance)).toEqual(["2.0000000", "1.0000000", "10000.0000000"]);
    const fromNow = await payments(payee.publicKey(), "?cursor=now");
    expect(fromNow._embedded.records).toEqual([]);
  });

  it("streams payments made after subscribing with cursor=now, and ends streams on close", async () => {
    const payer = await funded();
    const merchant = await funded();
    const received: any[] = [];
    const streamsBefore = net.openStreams;
    const close = horizon
      .payments()
      .forAccount(merchant.publicKey())
      .cursor("now")
      .stream({ onmessage: (record) => received.push(record), onerror: () => undefined });
    await waitFor(() => net.openStreams === streamsBefore + 1, "the stream to open");

    const response = await horizon.submitTransaction(await build(payer, [pay(merchant.publicKey(), "7.25")], { memo: Memo.text("inv-1") }));
    await waitFor(() => received.length === 1, "the streamed payment");
    expect(received[0]).toMatchObject({ type: "payment", amount: "7.2500000", from: payer.publicKey(), transaction_hash: response.hash });
    expect(received).toHaveLength(1); // the create_account before "now" was not replayed

    close();
    await waitFor(() => net.openStreams === streamsBefore, "the stream to close");
  });

  it("replays records after the cursor or Last-Event-ID on a raw SSE connection", async () => {
    const payer = await funded();
    const merchant = await funded();
    for (const amount of ["1", "2"]) await horizon.submitTransaction(await build(payer, [pay(merchant.publicKey(), amount)]));
    const [created, firstPayment] = (await payments(merchant.publicKey()))._embedded.records;

    const controller = new AbortController();
    const response = await fetch(`${origin}/_sim/horizon/accounts/${merchant.publicKey()}/payments?cursor=${created.paging_token}`, {
      headers: { accept: "text/event-stream", "last-event-id": firstPayment.paging_token },
      signal: controller.signal,
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("\n\nid: ") && !/data: .*\n\n$/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const events = [...text.matchAll(/id: (\d+)\ndata: (.*)\n\n/g)];
    expect(events).toHaveLength(1); // Last-Event-ID wins over the cursor: only the second payment
    expect(JSON.parse(events[0]![2]!)).toMatchObject({ amount: "2.0000000", paging_token: events[0]![1] });
  });
});

describe("ledger clock", () => {
  it("holds submissions until closeLedger(), notifies listeners and advances on empty ledgers", async () => {
    const fixed = new Date("2031-05-06T07:08:09.500Z");
    const quiet = new SimulatedNetwork({ networkPassphrase: Networks.PUBLIC, basePath: "/", ledgerCloseMs: 1000, clock: { now: () => fixed } });
    const payer = Keypair.random();
    const payee = Keypair.random();
    await quiet.fund(payer.publicKey()); // not started: fund() closes the ledger itself
    await quiet.fund(payee.publicKey());
    expect(quiet.latestLedger.sequence).toBe(3);

    const tx = new TransactionBuilder(new Account(payer.publicKey(), quiet.sequence(payer.publicKey())!), { fee: "100", networkPassphrase: Networks.PUBLIC })
      .addOperation(pay(payee.publicKey(), "1"))
      .setTimeout(0)
      .build();
    tx.sign(payer);
    const post = () =>
      quiet.fetch(
        new Request("http://sim.local/horizon/transactions", { method: "POST", body: new URLSearchParams({ tx: tx.toEnvelope().toXDR("base64") }) }),
      );
    const pending = post();
    const duplicate = post();
    await waitFor(() => quiet.pendingTransactionCount === 1, "the transaction to be queued");
    let answered = false;
    void pending.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(answered).toBe(false);

    const seen: LedgerSummary[] = [];
    const unsubscribe = quiet.onLedgerClosed((ledger) => seen.push(ledger));
    const ledger = await quiet.closeLedger();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("date")).toBe(fixed.toUTCString()); // the network's time, for fetchTimebounds()
    const record = (await response.json()) as any;
    expect(record).toMatchObject({ ledger: 4, successful: true, created_at: "2031-05-06T07:08:09Z" });
    expect(((await (await duplicate).json()) as any).hash).toBe(record.hash);
    expect(ledger).toMatchObject({ sequence: 4, transactionHashes: [record.hash], successfulTransactionCount: 1, operationCount: 1 });
    expect(seen.map((l) => l.sequence)).toEqual([4]);

    const empty = await quiet.closeLedger();
    expect(empty).toMatchObject({ sequence: 5, transactionHashes: [] });
    unsubscribe();
    await quiet.closeLedger();
    expect(seen).toHaveLength(2);
    const root = (await (await quiet.fetch(new Request("http://sim.local/horizon/"))).json()) as any;
    expect(root).toMatchObject({ network_passphrase: Networks.PUBLIC, history_latest_ledger: 6 });

    // transactions_async answers after the validity check; the transaction lands in the next ledger.
    const next = new TransactionBuilder(new Account(payer.publicKey(), quiet.sequence(payer.publicKey())!), { fee: "100", networkPassphrase: Networks.PUBLIC })
      .addOperation(pay(payee.publicKey(), "2"))
      .setTimeout(0)
      .build();
    next.sign(payer);
    const asyncResponse = await quiet.fetch(
      new Request("http://sim.local/horizon/transactions_async", { method: "POST", body: new URLSearchParams({ tx: next.toEnvelope().toXDR("base64") }) }),
    );
    expect(asyncResponse.status).toBe(201);
    expect(await asyncResponse.json()).toEqual({ tx_status: "PENDING", hash: next.hash().toString("hex") });

    // Ledgers stream too; stop() ends open streams.
    const stream = await quiet.fetch(new Request("http://sim.local/horizon/ledgers?cursor=now", { headers: { accept: "text/event-stream" } }));
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("retry: 1000\n\n");
    await quiet.closeLedger();
    const event = new TextDecoder().decode((await reader.read()).value);
    expect(event).toMatch(new RegExp(`^id: ${(7n << 32n).toString()}\ndata: `));
    expect(JSON.parse(event.split("data: ")[1]!)).toMatchObject({ sequence: 7, successful_transaction_count: 1 });
    expect(quiet.balance(payee.publicKey())).toBe("10003.0000000");
    expect(quiet.openStreams).toBe(1);
    await quiet.stop();
    expect(quiet.openStreams).toBe(0);
    expect((await reader.read()).done).toBe(true);
  });
});
