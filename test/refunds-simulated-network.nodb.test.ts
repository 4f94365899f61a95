// The simulated network learns claimable balances (a refund to an account without a trustline):
// createClaimableBalance and claimClaimableBalance with stellar-core's checks and result codes, the
// creator's sponsored reserve, Horizon's operation and claimable balance records; and SEP-29's
// memo_required data entry as the SDK's own check reads it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { AccountRequiresMemoError, Asset, Claimant, Horizon, Keypair, Memo, Networks, Operation, TimeoutInfinite, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { createServerAdapter } from "@whatwg-node/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";

let net: SimulatedNetwork;
let server: http.Server;
let horizon: Horizon.Server;
let base: string;

beforeAll(async () => {
  net = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "/_sim", ledgerCloseMs: 20, keepAliveMs: 200 });
  net.start();
  server = http.createServer(createServerAdapter((request: Request) => net.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_sim/horizon`;
  horizon = new Horizon.Server(base, { allowHttp: true });
});

afterAll(async () => {
  await net.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function funded(xlm = "100"): Promise<Keypair> {
  const keypair = Keypair.random();
  await net.fund(keypair.publicKey(), xlm);
  return keypair;
}

async function send(source: Keypair, operation: xdr.Operation, memo?: Memo) {
  const builder = new TransactionBuilder(await horizon.loadAccount(source.publicKey()), { fee: "100", networkPassphrase: Networks.TESTNET }).addOperation(operation);
  if (memo) builder.addMemo(memo);
  const tx = builder.setTimeout(TimeoutInfinite).build();
  tx.sign(source);
  return net.submitTransaction(tx);
}

const unconditional = (destination: string) => new Claimant(destination, Claimant.predicateUnconditional());

describe("claimable balances", () => {
  it("sets money aside for an account without a trustline, which claims it once it trusts the asset", async () => {
    const issuer = Keypair.random();
    const usdc = net.createAsset("USDC", issuer);
    const [merchant, customer] = [await funded(), await funded()];
    net.setTrustline(merchant.publicKey(), usdc, { balance: "50" });

    // A payment needs the trustline the customer does not have.
    const refused = await send(merchant, Operation.payment({ destination: customer.publicKey(), asset: usdc, amount: "5" }));
    expect(refused.status === "included" && refused.resultCodes.operations).toEqual(["op_no_trust"]);

    const created = await send(merchant, Operation.createClaimableBalance({ asset: usdc, amount: "5", claimants: [unconditional(customer.publicKey())] }));
    expect(created).toMatchObject({ status: "included", successful: true });
    const result = xdr.TransactionResult.fromXDR(created.resultXdr, "base64").result().results()[0]!.tr().createClaimableBalanceResult();
    const balanceId = result.balanceId().toXDR("hex");
    expect(balanceId).toMatch(/^00000000[0-9a-f]{64}$/);
    expect(net.balance(merchant.publicKey(), usdc)).toBe("45.0000000");

    // Horizon's records: the balance (by id and by claimant), the operation, the creator's sponsoring.
    const record = await horizon.claimableBalances().claimableBalance(balanceId).call();
    expect(record).toMatchObject({ id: balanceId, asset: `USDC:${issuer.publicKey()}`, amount: "5.0000000", sponsor: merchant.publicKey() });
    expect(record.claimants).toEqual([{ destination: customer.publicKey(), predicate: { unconditional: true } }]);
    const claimable = await horizon.claimableBalances().claimant(customer.publicKey()).call();
    expect(claimable.records.map((r) => r.id)).toEqual([balanceId]);
    const operations = await horizon.operations().forAccount(customer.publicKey()).order("desc").limit(1).call();
    expect(operations.records[0]).toMatchObject({ type: "create_claimable_balance", amount: "5.0000000", sponsor: merchant.publicKey() });
    expect((await horizon.loadAccount(merchant.publicKey())).num_sponsoring).toBe(1);

    // Claiming without the trustline fails; with it the money arrives and the balance is gone.
    const early = await send(customer, Operation.claimClaimableBalance({ balanceId }));
    expect(early.status === "included" && early.resultCodes.operations).toEqual(["op_no_trust"]);
    net.setTrustline(customer.publicKey(), usdc);
    const claimed = await send(customer, Operation.claimClaimableBalance({ balanceId }));
    expect(claimed).toMatchObject({ status: "included", successful: true });
    expect(net.balance(customer.publicKey(), usdc)).toBe("5.0000000");
    await expect(horizon.claimableBalances().claimableBalance(balanceId).call()).rejects.toThrow(/Not Found/);
    expect((await horizon.loadAccount(merchant.publicKey())).num_sponsoring).toBe(0);
    const again = await send(customer, Operation.claimClaimableBalance({ balanceId }));
    expect(again.status === "included" && again.resultCodes.operations).toEqual(["op_does_not_exist"]);
  });

  it("lets only a claimant claim, while its predicate holds", async () => {
    const [merchant, customer, stranger] = [await funded(), await funded(), await funded()];
    const expired = new Claimant(customer.publicKey(), Claimant.predicateBeforeAbsoluteTime("1"));
    const created = await send(merchant, Operation.createClaimableBalance({ asset: Asset.native(), amount: "3", claimants: [expired, unconditional(stranger.publicKey())] }));
    expect(created).toMatchObject({ status: "included", successful: true });
    const balanceId = xdr.TransactionResult.fromXDR(created.resultXdr, "base64").result().results()[0]!.tr().createClaimableBalanceResult().balanceId().toXDR("hex");
    const late = await send(customer, Operation.claimClaimableBalance({ balanceId }));
    expect(late.status === "included" && late.resultCodes.operations).toEqual(["op_cannot_claim"]);
    const outsider = await send(await funded(), Operation.claimClaimableBalance({ balanceId }));
    expect(outsider.status === "included" && outsider.resultCodes.operations).toEqual(["op_cannot_claim"]);
    const before = BigInt(net.balance(stranger.publicKey())!.replace(".", ""));
    expect(await send(stranger, Operation.claimClaimableBalance({ balanceId }))).toMatchObject({ successful: true });
    // 3 XLM arrive, less the claim's fee (100 stroops).
    expect(BigInt(net.balance(stranger.publicKey())!.replace(".", "")) - before).toBe(30_000_000n - 100n);
  });

  it("refuses a malformed one before any ledger, and in the ledger one its creator cannot sponsor or pay", async () => {
    const merchant = await funded("1.5");
    const twice = await send(merchant, Operation.createClaimableBalance({ asset: Asset.native(), amount: "1", claimants: [unconditional(merchant.publicKey()), unconditional(merchant.publicKey())] }));
    expect(twice).toMatchObject({ status: "rejected", resultCodes: { transaction: "tx_failed", operations: ["op_malformed"] } });
    // 1.5 XLM less the fee: past the account's 1 XLM reserve, less than the balance's 0.5 XLM sponsorship.
    const poor = await send(merchant, Operation.createClaimableBalance({ asset: Asset.native(), amount: "0.1", claimants: [unconditional(Keypair.random().publicKey())] }));
    expect(poor.status === "included" && poor.resultCodes.operations).toEqual(["op_low_reserve"]);
    const richer = await funded("10");
    const tooMuch = await send(richer, Operation.createClaimableBalance({ asset: Asset.native(), amount: "9", claimants: [unconditional(Keypair.random().publicKey())] }));
    expect(tooMuch.status === "included" && tooMuch.resultCodes.operations).toEqual(["op_underfunded"]);
    expect(net.balance(richer.publicKey())).toBe("9.9999900");
  });
});

describe("SEP-29 memo_required", () => {
  it("is an account data entry the SDK's own check reads: payments to it without a memo are refused by the wallet", async () => {
    const [exchange, payer] = [await funded(), await funded()];
    expect(await send(exchange, Operation.manageData({ name: "config.memo_required", value: "1" }))).toMatchObject({ successful: true });
    const tx = new TransactionBuilder(await horizon.loadAccount(payer.publicKey()), { fee: "100", networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.payment({ destination: exchange.publicKey(), asset: Asset.native(), amount: "1" }))
      .setTimeout(TimeoutInfinite)
      .build();
    tx.sign(payer);
    await expect(horizon.submitTransaction(tx)).rejects.toBeInstanceOf(AccountRequiresMemoError);
    expect((await horizon.loadAccount(exchange.publicKey())).data_attr).toEqual({ "config.memo_required": Buffer.from("1").toString("base64") });
  });
});
