// The simulated network's Stellar RPC API (/_sim/rpc), driven by @stellar/stellar-sdk's rpc.Server
// over real HTTP: every answer must parse with the SDK, carry the XDR a protocol 23 node gives
// (TransactionMetaV4, LedgerCloseMeta, ledger entries) and CAP-67's events for the classic
// payments the network applies, over the same ledger its Horizon API serves.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import {
  Asset,
  Claimant,
  Horizon,
  Keypair,
  Memo,
  MuxedAccount,
  Networks,
  Operation,
  StrKey,
  TimeoutInfinite,
  TransactionBuilder,
  nativeToScVal,
  rpc,
  scValToNative,
  xdr,
} from "@stellar/stellar-sdk";
import { createServerAdapter } from "@whatwg-node/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";

const PASSPHRASE = Networks.TESTNET;
const RETENTION = 40;

let net: SimulatedNetwork;
let publicNet: SimulatedNetwork;
let server: http.Server;
let origin: string;
let client: rpc.Server;
let horizon: Horizon.Server;

beforeAll(async () => {
  // The ledger clock is not started: each test closes ledgers itself, so what a ledger holds is known.
  net = new SimulatedNetwork({ networkPassphrase: PASSPHRASE, basePath: "/_sim", rpcRetentionLedgers: RETENTION });
  publicNet = new SimulatedNetwork({ networkPassphrase: Networks.PUBLIC, basePath: "/_sim/public" });
  server = http.createServer(
    createServerAdapter((request: Request) => (new URL(request.url).pathname.startsWith("/_sim/public") ? publicNet : net).fetch(request)),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new rpc.Server(`${origin}/_sim/rpc`, { allowHttp: true });
  horizon = new Horizon.Server(`${origin}/_sim/horizon`, { allowHttp: true });
});

afterAll(async () => {
  await net.stop();
  await publicNet.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function funded(xlm = "1000"): Promise<Keypair> {
  const keypair = Keypair.random();
  await net.fund(keypair.publicKey(), xlm);
  return keypair;
}

/** A transaction signed by `source`, its sequence read through RPC (getLedgerEntries). */
async function signed(source: Keypair, operations: xdr.Operation[], memo?: Memo) {
  const builder = new TransactionBuilder(await client.getAccount(source.publicKey()), { fee: "100", networkPassphrase: PASSPHRASE });
  for (const op of operations) builder.addOperation(op);
  if (memo) builder.addMemo(memo);
  const tx = builder.setTimeout(TimeoutInfinite).build();
  tx.sign(source);
  return tx;
}

/** getTransaction's answer for a transaction in a ledger (SUCCESS or FAILED). */
async function inLedger(hash: string) {
  const found = await client.getTransaction(hash);
  if (found.status === rpc.Api.GetTransactionStatus.NOT_FOUND) throw new Error(`transaction ${hash} not found`);
  return found;
}

/** Sends through RPC, closes the ledger, and returns getTransaction's answer. */
async function sendAndClose(source: Keypair, operations: xdr.Operation[], memo?: Memo) {
  const sent = await client.sendTransaction(await signed(source, operations, memo));
  expect(sent.status).toBe("PENDING");
  await net.closeLedger();
  return inLedger(sent.hash);
}

const native = (value: xdr.ScVal) => scValToNative(value) as unknown;
const symbol = (name: string) => xdr.ScVal.scvSymbol(name).toXDR("base64");
const contractOf = (asset: Asset) => asset.contractId(PASSPHRASE);

/** The events of one ledger for one asset contract, decoded to plain values. */
async function assetEvents(ledger: number, asset: Asset, topics: string[][] = [["*", "**"]]) {
  const answer = await client.getEvents({ startLedger: ledger, endLedger: ledger + 1, filters: [{ type: "contract", contractIds: [contractOf(asset)], topics }] });
  return answer.events.map((event) => ({ topic: event.topic.map(native), value: native(event.value), txHash: event.txHash, id: event.id }));
}

/** The JSON-RPC error the SDK throws ({code, message}). */
async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error("expected a JSON-RPC error");
}

async function rawCall(method: string, params: unknown) {
  const response = await fetch(`${origin}/_sim/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }) });
  return (await response.json()) as { id: number; result?: Record<string, unknown>; error?: { code: number; message: string } };
}

describe("network, health and ledgers", () => {
  it("answers getHealth, getNetwork and getLatestLedger as a protocol 23 node, in the SDK's types", async () => {
    await funded();
    const latest = net.latestLedger;
    const health = await client.getHealth();
    expect(health).toEqual({ status: "healthy", latestLedger: latest.sequence, latestLedgerCloseTime: Math.floor(latest.closedAt.getTime() / 1000), oldestLedger: Math.max(1, latest.sequence - RETENTION + 1), ledgerRetentionWindow: RETENTION });

    const network = await client.getNetwork();
    expect(network).toEqual({ passphrase: PASSPHRASE, protocolVersion: 23, friendbotUrl: `${origin}/_sim/friendbot` });

    const ledger = await client.getLatestLedger();
    expect(ledger).toMatchObject({ id: latest.hash, sequence: latest.sequence, protocolVersion: 23, closeTime: String(Math.floor(latest.closedAt.getTime() / 1000)) });
    expect(ledger.headerXdr.ledgerSeq()).toBe(latest.sequence);
    expect(ledger.headerXdr.ledgerVersion()).toBe(23);
    // The close meta carries the ledger's transactions (the funding just made) and their results.
    const meta = ledger.metadataXdr.v2();
    expect(meta.ledgerHeader().hash().toString("hex")).toBe(latest.hash);
    expect(meta.txProcessing().map((tx) => tx.result().transactionHash().toString("hex"))).toEqual(latest.transactionHashes);
  });

  it("serves the simulated public network at /_sim/public/rpc, whose asset contracts are the public network's", async () => {
    const publicClient = new rpc.Server(`${origin}/_sim/public/rpc`, { allowHttp: true });
    expect((await publicClient.getNetwork()).passphrase).toBe(Networks.PUBLIC);
    const payer = Keypair.random();
    const { ledger } = await publicNet.fund(payer.publicKey());
    const events = await publicClient.getEvents({ startLedger: ledger, filters: [{ contractIds: [Asset.native().contractId(Networks.PUBLIC)], topics: [[symbol("transfer"), "*", "*", "*"]] }] });
    expect(events.events.map((event) => event.topic.map(native))).toEqual([["transfer", publicNet.rootKeypair.publicKey(), payer.publicKey(), "native"]]);
    expect(Asset.native().contractId(Networks.PUBLIC)).not.toBe(contractOf(Asset.native()));
  });
});

describe("CAP-67 events of classic payments", () => {
  it("emits a transfer for a create account and a payment, with the memo as to_muxed_id, and a fee event", async () => {
    const payer = Keypair.random();
    const { ledger: created } = await net.fund(payer.publicKey(), "500");
    expect(await assetEvents(created, Asset.native(), [[symbol("transfer"), "*", "*", "*"]])).toEqual([
      expect.objectContaining({ topic: ["transfer", net.rootKeypair.publicKey(), payer.publicKey(), "native"], value: 5_000_000_000n }),
    ]);

    const merchant = await funded();
    const paid = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "12.5" })], Memo.id("1234"));
    expect(paid.status).toBe("SUCCESS");
    if (paid.status !== "SUCCESS") return;
    const events = await assetEvents(paid.ledger, Asset.native());
    expect(events).toEqual([
      // Fees are charged before any transaction applies: the fee event comes first in the ledger.
      { topic: ["fee", payer.publicKey()], value: 100n, txHash: paid.txHash, id: expect.stringMatching(/^\d{19}-\d{10}$/) },
      { topic: ["transfer", payer.publicKey(), merchant.publicKey(), "native"], value: { amount: 125_000_000n, to_muxed_id: 1234n }, txHash: paid.txHash, id: expect.any(String) },
    ]);

    // getTransaction carries the same events, in the meta (TransactionMetaV4) and in `events`.
    expect(paid.resultMetaXdr.switch()).toBe(4);
    const opEvents = paid.resultMetaXdr.v4().operations()[0]!.events();
    expect(opEvents.map((event) => event.body().v0().topics().map(native))).toEqual([["transfer", payer.publicKey(), merchant.publicKey(), "native"]]);
    expect(paid.events.contractEventsXdr.map((list) => list.length)).toEqual([1]);
    expect(paid.events.transactionEventsXdr.map((event) => native(event.event().body().v0().data()))).toEqual([100n]);
    expect(paid.resultXdr.result().switch().name).toBe("txSuccess");
    expect(paid.envelopeXdr.v1().tx().memo().id().toString()).toBe("1234");
  });

  it("names a muxed destination's id, a text memo as a string and a hash memo as bytes", async () => {
    const [payer, merchant] = [await funded(), await funded()];
    const muxed = new MuxedAccount(await client.getAccount(merchant.publicKey()), "987654321").accountId();
    const toMuxed = await sendAndClose(payer, [Operation.payment({ destination: muxed, asset: Asset.native(), amount: "1" })], Memo.text("ignored for muxed"));
    expect((await assetEvents(toMuxed.ledger, Asset.native(), [[symbol("transfer"), "*", "*", "*"]])).map((e) => [e.topic[2], e.value])).toEqual([
      [merchant.publicKey(), { amount: 10_000_000n, to_muxed_id: 987654321n }],
    ]);

    const withText = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "2" })], Memo.text("order-77"));
    expect((await assetEvents(withText.ledger, Asset.native(), [[symbol("transfer"), "**"]]))[0]!.value).toEqual({ amount: 20_000_000n, to_muxed_id: "order-77" });

    const hash = randomBytes(32);
    const withHash = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "3" })], Memo.hash(hash.toString("hex")));
    const value = (await assetEvents(withHash.ledger, Asset.native(), [[symbol("transfer"), "**"]]))[0]!.value as { to_muxed_id: Buffer };
    expect(Buffer.from(value.to_muxed_id).equals(hash)).toBe(true);

    const plain = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "4" })]);
    expect((await assetEvents(plain.ledger, Asset.native(), [[symbol("transfer"), "**"]]))[0]!.value).toBe(40_000_000n);
  });

  it("emits mint when the issuer pays and burn when the issuer is paid, on the asset's own contract", async () => {
    const issuer = Keypair.random();
    const usdc = net.createAsset("USDC", issuer);
    const holder = await funded();
    net.setTrustline(holder.publicKey(), usdc);

    const minted = await sendAndClose(issuer, [Operation.payment({ destination: holder.publicKey(), asset: usdc, amount: "50" })], Memo.id("5"));
    expect((await assetEvents(minted.ledger, usdc)).map((e) => [e.topic, e.value])).toEqual([
      [["mint", holder.publicKey(), `USDC:${issuer.publicKey()}`], { amount: 500_000_000n, to_muxed_id: 5n }],
    ]);
    const burnt = await sendAndClose(holder, [Operation.payment({ destination: issuer.publicKey(), asset: usdc, amount: "20" })], Memo.id("6"));
    // A burn names no destination, so it carries no to_muxed_id.
    expect((await assetEvents(burnt.ledger, usdc)).map((e) => [e.topic, e.value])).toEqual([[["burn", holder.publicKey(), `USDC:${issuer.publicKey()}`], 200_000_000n]]);
    expect(net.balance(holder.publicKey(), usdc)).toBe("30.0000000");
  });

  it("emits each trade of a path payment between the payer and the offer's owner, then the payer's transfer to the destination", async () => {
    const issuer = Keypair.random();
    const eurc = net.createAsset("EURC", issuer);
    const [payer, merchant, maker] = [await funded(), await funded(), await funded()];
    net.setTrustline(merchant.publicKey(), eurc);
    net.setTrustline(maker.publicKey(), eurc, { balance: "1000" });
    net.addOffer({ selling: eurc, buying: Asset.native(), price: "2", amount: "100", seller: maker.publicKey() });

    const paid = await sendAndClose(payer, [Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax: "100", destination: merchant.publicKey(), destAsset: eurc, destAmount: "10", path: [] })], Memo.id("9"));
    expect(paid.status).toBe("SUCCESS");
    const [nativeEvents, eurcEvents] = [await assetEvents(paid.ledger, Asset.native(), [[symbol("transfer"), "**"]]), await assetEvents(paid.ledger, eurc)];
    expect(nativeEvents.map((e) => [e.topic, e.value])).toEqual([[["transfer", payer.publicKey(), maker.publicKey(), "native"], 200_000_000n]]);
    expect(eurcEvents.map((e) => [e.topic, e.value])).toEqual([
      [["transfer", maker.publicKey(), payer.publicKey(), `EURC:${issuer.publicKey()}`], 100_000_000n],
      [["transfer", payer.publicKey(), merchant.publicKey(), `EURC:${issuer.publicKey()}`], { amount: 100_000_000n, to_muxed_id: 9n }],
    ]);
    // Ids order the trade before the final transfer, within one operation.
    const ordered = (await client.getEvents({ startLedger: paid.ledger, endLedger: paid.ledger + 1, filters: [{ topics: [[symbol("transfer"), "**"]] }] })).events;
    expect(ordered.map((event) => event.id)).toEqual([...ordered.map((event) => event.id)].sort());
    expect(ordered.map((event) => event.operationIndex)).toEqual([0, 0, 0]);
  });

  it("emits a transfer of the whole balance for an account merge, after which the account is gone", async () => {
    const [leaving, merchant] = [await funded("30"), await funded()];
    const merged = await sendAndClose(leaving, [Operation.accountMerge({ destination: merchant.publicKey() })], Memo.id("31"));
    expect(merged.status).toBe("SUCCESS");
    // 30 XLM less the fee of this transaction.
    const handedOver = merged.resultXdr.result().results()[0]!.tr().accountMergeResult().sourceAccountBalance().toString();
    expect(handedOver).toBe("299999900");
    expect((await assetEvents(merged.ledger, Asset.native(), [[symbol("transfer"), "**"]])).map((e) => [e.topic, e.value])).toEqual([
      [["transfer", leaving.publicKey(), merchant.publicKey(), "native"], { amount: 299_999_900n, to_muxed_id: 31n }],
    ]);
    expect((await client.getLedgerEntries(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: leaving.xdrAccountId() })))).entries).toEqual([]);
    const [record] = (await horizon.operations().forTransaction(merged.txHash).call()).records;
    expect(record).toMatchObject({ type: "account_merge", account: leaving.publicKey(), into: merchant.publicKey() });

    // An account with a trustline cannot merge (stellar-core's ACCOUNT_MERGE_HAS_SUB_ENTRIES).
    const holder = await funded();
    net.setTrustline(holder.publicKey(), net.createAsset("USDC", Keypair.random()));
    const refused = await sendAndClose(holder, [Operation.accountMerge({ destination: merchant.publicKey() })]);
    expect(refused.status).toBe("FAILED");
    expect(refused.resultXdr.result().results()[0]!.tr().accountMergeResult().switch().name).toBe("accountMergeHasSubEntries");
  });

  it("emits transfers into and out of a claimable balance, whose address is the balance", async () => {
    const [payer, customer] = [await funded(), await funded()];
    const created = await sendAndClose(payer, [Operation.createClaimableBalance({ asset: Asset.native(), amount: "5", claimants: [new Claimant(customer.publicKey())] })]);
    const [into] = await assetEvents(created.ledger, Asset.native(), [[symbol("transfer"), "**"]]);
    const balanceAddress = into!.topic[2] as string;
    expect(into!.topic.slice(0, 2)).toEqual(["transfer", payer.publicKey()]);
    expect(balanceAddress.startsWith("B")).toBe(true);

    const balanceId = created.resultXdr.result().results()[0]!.tr().createClaimableBalanceResult().balanceId().toXDR("hex");
    const claimed = await sendAndClose(customer, [Operation.claimClaimableBalance({ balanceId })]);
    const [out] = await assetEvents(claimed.ledger, Asset.native(), [[symbol("transfer"), "**"]]);
    expect(out!.topic).toEqual(["transfer", balanceAddress, customer.publicKey(), "native"]);
    expect(out!.value).toBe(50_000_000n);
  });
});

describe("submission and transactions", () => {
  it("answers PENDING, then DUPLICATE while queued, NOT_FOUND until its ledger closes, then SUCCESS", async () => {
    const [payer, merchant] = [await funded(), await funded()];
    const tx = await signed(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "1" })]);
    const first = await client.sendTransaction(tx);
    expect(first).toMatchObject({ status: "PENDING", hash: tx.hash().toString("hex"), latestLedger: net.latestLedger.sequence });
    expect(typeof first.latestLedgerCloseTime).toBe("string"); // stellar-rpc encodes it as a string here
    expect((await client.sendTransaction(tx)).status).toBe("DUPLICATE");
    expect((await client.getTransaction(first.hash)).status).toBe("NOT_FOUND");
    await net.closeLedger();
    const found = await client.getTransaction(first.hash);
    expect(found).toMatchObject({ status: "SUCCESS", ledger: net.latestLedger.sequence, applicationOrder: 1, feeBump: false });
    // Sent again once applied, its sequence number is used: stellar-core refuses it.
    const again = await client.sendTransaction(tx);
    expect(again.status).toBe("ERROR");
    expect(again.errorResult!.result().switch().name).toBe("txBadSeq");
  });

  it("records a transaction whose operation fails as FAILED, with its fee event and no transfer", async () => {
    const payer = await funded();
    const failed = await sendAndClose(payer, [Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: "1" })]);
    expect(failed.status).toBe("FAILED");
    if (failed.status !== "FAILED") return;
    expect(failed.resultXdr.result().results()[0]!.tr().paymentResult().switch().name).toBe("paymentNoDestination");
    expect(failed.events.contractEventsXdr).toEqual([]);
    expect((await assetEvents(failed.ledger, Asset.native())).map((e) => e.topic[0])).toEqual(["fee"]);
  });

  it("rejects bad XDR with invalid params and a bad hash with stellar-rpc's messages", async () => {
    expect(await rawCall("sendTransaction", { transaction: "not xdr" })).toMatchObject({ id: 7, error: { code: -32602, message: "invalid_xdr" } });
    expect((await rawCall("getTransaction", { hash: "abc" })).error).toEqual({ code: -32602, message: "unexpected hash length (3)" });
    expect((await rawCall("getFeeStats", null)).error).toMatchObject({ code: -32601 });
    const garbage = await fetch(`${origin}/_sim/rpc`, { method: "POST", body: "{" });
    expect(await garbage.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("pages getTransactions from a start ledger with a cursor, in ledger and application order", async () => {
    const payer = await funded();
    const merchant = await funded();
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await client.sendTransaction(await signed(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "1" })]));
      hashes.push(sent.hash);
      await net.closeLedger();
    }
    const startLedger = (await inLedger(hashes[0]!)).ledger;
    const firstPage = await client.getTransactions({ startLedger, pagination: { limit: 2 } });
    expect(firstPage.transactions.map((tx) => tx.txHash)).toEqual(hashes.slice(0, 2));
    expect(firstPage.transactions[0]!.resultMetaXdr.switch()).toBe(4);
    expect(typeof firstPage.transactions[0]!.createdAt).toBe("number");
    const secondPage = await client.getTransactions({ pagination: { cursor: firstPage.cursor, limit: 2 } });
    expect(secondPage.transactions[0]!.txHash).toBe(hashes[2]);
  });
});

describe("getEvents paging, filters and retention", () => {
  it("walks events one at a time by cursor, then answers the end of the window it searched", async () => {
    const [payer, merchant] = [await funded(), await funded()];
    const paid = await sendAndClose(payer, [
      Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "1" }),
      Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "2" }),
      Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "3" }),
    ]);
    const filters = [{ contractIds: [contractOf(Asset.native())], topics: [[symbol("transfer"), "*", nativeToScVal(merchant.publicKey(), { type: "address" }).toXDR("base64"), "*"]] }];
    const amounts: unknown[] = [];
    let page = await client.getEvents({ startLedger: paid.ledger, filters, limit: 1 });
    while (page.events.length > 0) {
      amounts.push(native(page.events[0]!.value));
      expect(page.cursor).toBe(page.events[0]!.id);
      page = await client.getEvents({ cursor: page.cursor, filters, limit: 1 });
    }
    expect(amounts).toEqual([10_000_000n, 20_000_000n, 30_000_000n]);
    expect(page.cursor).toMatch(/^\d{19}-4294967295$/);
    expect(page.latestLedger).toBe(net.latestLedger.sequence);

    // Polling on from the end-of-window cursor sees what later ledgers bring, and nothing twice.
    const later = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "4" })]);
    const next = await client.getEvents({ cursor: page.cursor, filters });
    expect(next.events.map((event) => [event.ledger, native(event.value)])).toEqual([[later.ledger, 40_000_000n]]);
  });

  it("matches topic filters as stellar-rpc does: exact length unless a trailing **, * for one segment", async () => {
    const [payer, merchant] = [await funded(), await funded()];
    const paid = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "1" })]);
    const count = async (topics: string[][]) => (await client.getEvents({ startLedger: paid.ledger, endLedger: paid.ledger + 1, filters: [{ topics }] })).events.length;
    expect(await count([[symbol("transfer"), "*", "*", "*"]])).toBe(1);
    expect(await count([[symbol("transfer"), "*", "*"]])).toBe(0);
    expect(await count([[symbol("transfer"), "**"]])).toBe(1);
    expect(await count([["*", "**"]])).toBe(2); // the fee event too
    expect(await count([[symbol("mint"), "**"], [symbol("fee"), "*"]])).toBe(1);
    expect(await count([[symbol("transfer"), nativeToScVal(merchant.publicKey(), { type: "address" }).toXDR("base64"), "**"]])).toBe(0);
  });

  it("refuses bad requests with stellar-rpc's messages and codes", async () => {
    const latest = net.latestLedger.sequence;
    expect(await rpcError(client.getEvents({ startLedger: latest + 5, filters: [] }))).toEqual({ code: -32600, message: `startLedger must be within the ledger range: ${Math.max(1, latest - RETENTION + 1)} - ${latest}` });
    expect((await rawCall("getEvents", { filters: [] })).error).toEqual({ code: -32602, message: "startLedger must be positive" });
    expect((await rawCall("getEvents", { startLedger: latest, filters: Array(6).fill({}) })).error).toEqual({ code: -32602, message: "maximum 5 filters per request" });
    expect((await rawCall("getEvents", { startLedger: latest, filters: [{ type: "diagnostic" }] })).error).toEqual({
      code: -32602,
      message: "filter 1 invalid: filter type invalid: if set, type must be either 'system' or 'contract'",
    });
    expect((await rawCall("getEvents", { startLedger: latest, filters: [{ contractIds: ["GABC"] }] })).error).toEqual({ code: -32602, message: "filter 1 invalid: contract ID 1 invalid" });
    expect((await rawCall("getEvents", { startLedger: latest, filters: [{ topics: [["**", "*"]] }] })).error?.message).toBe(
      "filter 1 invalid: topic 1 invalid: segment 1 invalid: wildcard '**' is only allowed as the last segment",
    );
    expect((await rawCall("getEvents", { startLedger: latest, pagination: { limit: 10_001 } })).error?.message).toBe("limit must not exceed 10000");
    expect((await rawCall("getEvents", { startLedger: latest, pagination: { cursor: "0000000001-0" } })).error?.message).toBe("ledger ranges and cursor cannot both be set");
  });

  it("keeps only the retention window: older ledgers are out of range and their transactions NOT_FOUND", async () => {
    const [payer, merchant] = [await funded(), await funded()];
    const old = await sendAndClose(payer, [Operation.payment({ destination: merchant.publicKey(), asset: Asset.native(), amount: "1" })]);
    const oldCursor = (await assetEvents(old.ledger, Asset.native()))[0]!.id;
    for (let i = 0; i < RETENTION; i++) await net.closeLedger();
    const latest = net.latestLedger.sequence;
    const oldest = latest - RETENTION + 1;
    expect(old.ledger).toBeLessThan(oldest);
    expect((await client.getHealth()).oldestLedger).toBe(oldest);
    expect(await rpcError(client.getEvents({ startLedger: old.ledger, filters: [] }))).toEqual({ code: -32600, message: `startLedger must be within the ledger range: ${oldest} - ${latest}` });
    // A cursor from before the window is refused the same way: the client learns it missed ledgers.
    expect(await rpcError(client.getEvents({ cursor: oldCursor, filters: [] }))).toMatchObject({ code: -32600 });
    expect((await client.getTransaction(old.txHash)).status).toBe("NOT_FOUND");
    expect((await rpcError(client.getTransactions({ startLedger: old.ledger }))).message).toBe(
      `start ledger must be between the oldest ledger: ${oldest} and the latest ledger: ${latest} for this rpc instance`,
    );
    // Horizon keeps the whole history: the same ledger, seen through the other API.
    expect((await horizon.transactions().transaction(old.txHash).call()).ledger_attr).toBe(old.ledger);
  });
});

describe("ledger entries", () => {
  it("answers account, trustline and data entries from the same ledger Horizon serves", async () => {
    const issuer = Keypair.random();
    const usdc = net.createAsset("USDC", issuer);
    const holder = await funded("250");
    net.setTrustline(holder.publicKey(), usdc, { balance: "75.5" });
    const account = await client.getAccountEntry(holder.publicKey());
    expect(account.balance().toString()).toBe("2500000000");
    expect(account.seqNum().toString()).toBe(net.sequence(holder.publicKey()));
    expect(account.numSubEntries()).toBe(1);
    const line = await client.getTrustline(holder.publicKey(), usdc);
    expect(line.balance().toString()).toBe("755000000");
    expect(line.flags()).toBe(1);
    expect((await horizon.loadAccount(holder.publicKey())).balances.find((b) => "asset_code" in b && b.asset_code === "USDC")?.balance).toBe("75.5000000");

    // SEP-29: an exchange's memo_required data entry, read as a node serves it.
    const exchange = await funded();
    await sendAndClose(exchange, [Operation.manageData({ name: "config.memo_required", value: "1" })]);
    const dataKey = xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId: exchange.xdrAccountId(), dataName: "config.memo_required" }));
    const [data] = (await client.getLedgerEntries(dataKey)).entries;
    expect(data!.val.data().dataValue().toString()).toBe("1");
    const noData = xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId: holder.xdrAccountId(), dataName: "config.memo_required" }));
    expect((await client.getLedgerEntries(noData)).entries).toEqual([]);

    const missing = Keypair.random().publicKey();
    const answer = await client.getLedgerEntries(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(missing).xdrAccountId() })));
    expect(answer.entries).toEqual([]);
    await expect(client.getAccount(missing)).rejects.toThrow(/not found/i);
  });
});

describe("payments from contract accounts (recorded; no contract code runs)", () => {
  it("records a transfer from a C... address whose event names the contract as the payer", async () => {
    const issuer = Keypair.random();
    const usdc = net.createAsset("USDC", issuer);
    const merchant = await funded();
    net.setTrustline(merchant.publicKey(), usdc);
    const wallet = StrKey.encodeContract(randomBytes(32));
    const muxed = new MuxedAccount(await client.getAccount(merchant.publicKey()), "77").accountId();

    const recorded = await net.recordContractTransfer({ from: wallet, to: muxed, asset: usdc, amount: "19.99" });
    expect(recorded.successful).toBe(true);
    expect(net.balance(merchant.publicKey(), usdc)).toBe("19.9900000");
    const events = await assetEvents(recorded.ledger, usdc);
    expect(events).toEqual([expect.objectContaining({ topic: ["transfer", wallet, merchant.publicKey(), `USDC:${issuer.publicKey()}`], value: { amount: 199_900_000n, to_muxed_id: 77n }, txHash: recorded.hash })]);

    // The transaction is a call of the asset contract's transfer, as a smart wallet's payment is.
    const tx = await client.getTransaction(recorded.hash);
    expect(tx.status).toBe("SUCCESS");
    if (tx.status !== "SUCCESS") return;
    const call = tx.envelopeXdr.v1().tx().operations()[0]!.body().invokeHostFunctionOp().hostFunction().invokeContract();
    expect(call.functionName().toString()).toBe("transfer");
    expect(StrKey.encodeContract(call.contractAddress().contractId() as unknown as Buffer)).toBe(contractOf(usdc));
    expect(tx.returnValue?.switch().name).toBe("scvVoid");
    // Horizon's /payments does not list a contract call as a payment (why issue #28 needs RPC).
    const payments = await horizon.payments().forAccount(merchant.publicKey()).call();
    expect(payments.records.map((record) => record.transaction_hash)).not.toContain(recorded.hash);
  });

  it("fails the call (trapped) when the destination cannot hold the asset, crediting nothing", async () => {
    const usdc = net.createAsset("USDC", Keypair.random());
    const merchant = await funded();
    const recorded = await net.recordContractTransfer({ from: StrKey.encodeContract(randomBytes(32)), to: merchant.publicKey(), asset: usdc, amount: "5" });
    expect(recorded.successful).toBe(false);
    const tx = await client.getTransaction(recorded.hash);
    expect(tx.status).toBe("FAILED");
    expect((await assetEvents(recorded.ledger, usdc)).length).toBe(0);
    await expect(net.recordContractTransfer({ from: merchant.publicKey(), to: merchant.publicKey(), asset: usdc, amount: "5" })).rejects.toThrow(/contract address/);
  });
});
