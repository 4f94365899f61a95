// Paying on the simulated network as a wallet would: real keypairs, real signed XDR built with
// @stellar/stellar-sdk, submitted to the network's Horizon API over HTTP.
import { Asset, Horizon, Keypair, Memo, Networks, Operation, TimeoutInfinite, TransactionBuilder, type xdr } from "@stellar/stellar-sdk";
import type { SimulatedNetwork } from "../../src/ledger/simulated/index.ts";
import { enableAsset } from "../../src/modules/organizations/organizations.service.ts";
import { type Merchant, type TestApp, startTestApp } from "./test-app.ts";

export interface Wallet {
  horizon: Horizon.Server;
  network: SimulatedNetwork;
  networkPassphrase: string;
}

export function walletOn(network: SimulatedNetwork, horizonUrl: string): Wallet {
  return { horizon: new Horizon.Server(horizonUrl, { allowHttp: true }), network, networkPassphrase: network.networkPassphrase };
}

export interface LedgerWorld {
  t: TestApp;
  merchant: Merchant;
  network: SimulatedNetwork;
  wallet: Wallet;
  usdc: Asset;
}

/**
 * The app with its ledger workers on a simulated network closing every 100 ms, and a merchant whose
 * funded settlement wallet accepts XLM and USDC, with an order book selling USDC at
 * `usdcPriceInXlm` XLM.
 */
export async function startLedgerWorld(usdcPriceInXlm: string): Promise<LedgerWorld> {
  const t = await startTestApp({ workers: true, env: { LEDGER: "simulated", SIM_LEDGER_CLOSE_MS: "100" } });
  const merchant = await t.createMerchant();
  const network = t.app.ledger.simulatedNetwork(Networks.TESTNET)!;
  const wallet = walletOn(network, `${t.url}/_sim/horizon`);
  await network.fund(merchant.wallet.publicKey());
  const usdc = network.createAsset("USDC", Keypair.random());
  await enableAsset(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", code: "USDC", issuer: usdc.getIssuer() });
  network.setTrustline(merchant.wallet.publicKey(), usdc);
  network.addOffer({ selling: usdc, buying: Asset.native(), price: usdcPriceInXlm, amount: "1000000" });
  return { t, merchant, network, wallet, usdc };
}

export async function fundedPayer(wallet: Wallet): Promise<Keypair> {
  const payer = Keypair.random();
  await wallet.network.fund(payer.publicKey());
  return payer;
}

/** Builds and signs a transaction of `operations` from `payer` (with `memo`), as XDR. */
export async function signedTransaction(
  wallet: Wallet,
  payer: Keypair,
  operations: xdr.Operation[],
  options: { memo?: Memo; networkPassphrase?: string } = {},
): Promise<string> {
  const account = await wallet.horizon.loadAccount(payer.publicKey());
  const builder = new TransactionBuilder(account, { fee: "100", networkPassphrase: options.networkPassphrase ?? wallet.networkPassphrase });
  for (const op of operations) builder.addOperation(op);
  if (options.memo) builder.addMemo(options.memo);
  // No time bound: tests move the clock the network closes ledgers by.
  const tx = builder.setTimeout(TimeoutInfinite).build();
  tx.sign(payer);
  return tx.toEnvelope().toXDR("base64");
}

/** Submits through Horizon's POST /transactions; returns the hash, or the result codes of a refusal. */
export async function submit(wallet: Wallet, envelopeXdr: string): Promise<{ hash?: string; codes?: { transaction: string; operations?: string[] } }> {
  const tx = TransactionBuilder.fromXDR(envelopeXdr, wallet.networkPassphrase);
  try {
    const result = await wallet.horizon.submitTransaction(tx, { skipMemoRequiredCheck: true });
    return { hash: result.hash };
  } catch (error: any) {
    const codes = error?.response?.data?.extras?.result_codes;
    if (!codes) throw error;
    return { codes };
  }
}

export const payOp = (destination: string, amount: string, asset: Asset = Asset.native()) =>
  Operation.payment({ destination, asset, amount });

/** Polls `read` until `done` holds (the ledger and the streamer work in real time). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export { Memo };
