// The payer's side of the checkout: build the unsigned transaction that pays a payment exactly,
// check and submit the transaction the payer's wallet signed, and (sandbox only) pay with a
// throwaway test wallet. Public: the payment id is the only credential, as on the checkout page.
// Completion itself always comes from the ledger streamer, never from here: one path, counted once.
import {
  Account,
  FeeBumpTransaction,
  Keypair,
  MuxedAccount,
  Networks,
  Operation,
  type Transaction,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import type { Payment } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import type { Ledger } from "../../ledger/ledger.ts";
import { toSdkAsset } from "../../ledger/horizon-source.ts";
import { type Asset, assetKey, isNative, isStellarAddress, parseAssetList, sameAsset } from "../../shared/assets.ts";
import { capStroops, formatStroops, toStroops } from "../../shared/money.ts";
import { failPayment } from "../payments/payment-failure.ts";
import { muxedAddress } from "../payments/payment-instructions.ts";

export type CheckoutDeps = Deps & { ledger: Ledger };

/** How much more a path payment may spend than the quote, in percent. */
const SLIPPAGE_PERCENT = 1n;
/** The most the payer's transaction may pay in fees, in stroops. */
const MAX_FEE = "10000";
/** How long a prepared transaction stays valid. */
const VALIDITY_SECONDS = 15 * 60;

export interface PreparedTransaction {
  xdr: string;
  networkPassphrase: string;
  payAsset: Asset;
  /** the most the payer spends in payAsset (the amount itself when no conversion) */
  sendMax: bigint;
  amount: bigint;
}

export interface CheckoutSubmission {
  txHash: string;
  successful: boolean;
  /** stellar-core's result codes when the ledger refused or failed it */
  resultCodes: string[];
  paymentStatus: string;
}

const settlementAssetOf = (p: Payment): Asset => ({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer });
/** What is still owed: the amount less what partial payments already brought. */
const remainingOf = (p: Payment) => (p.amountReceived >= p.amount ? 0n : p.amount - p.amountReceived);

async function pendingPayment(deps: CheckoutDeps, paymentId: string): Promise<Payment> {
  const payment = await deps.db.payment.findUnique({ where: { id: paymentId } });
  if (!payment) throw notFound();
  if (payment.status !== "pending") throw conflict("Payment is not pending");
  return payment;
}

export async function prepareCheckoutTransaction(
  deps: CheckoutDeps,
  input: { paymentId: string; payerAddress: string; payAsset?: Asset | null },
): Promise<PreparedTransaction> {
  const payment = await pendingPayment(deps, input.paymentId);
  if (!isStellarAddress(input.payerAddress)) throw badRequest("payerAddress must be a Stellar public key (G...)");
  const settlementAsset = settlementAssetOf(payment);
  const payAsset = input.payAsset ?? settlementAsset;
  const allowed = [settlementAsset, ...parseAssetList(payment.allowedAssets)];
  if (!allowed.some((a) => sameAsset(a, payAsset))) throw badRequest(`payAsset ${assetKey(payAsset)} is not allowed for this payment`);

  const source = deps.ledger.sourceFor(payment.networkPassphrase);
  const payer = await source.loadAccount(input.payerAddress);
  if (!payer) throw badRequest("payerAddress is not an account on the ledger (fund it first)");

  const amount = remainingOf(payment);
  const destination = muxedAddress(payment.settlementAddress, payment.memoId);
  let sendMax = amount;
  let operation;
  if (sameAsset(payAsset, settlementAsset)) {
    operation = Operation.payment({ destination, asset: toSdkAsset(settlementAsset), amount: formatStroops(amount) });
  } else {
    const paths = await source.findStrictReceivePaths({ sourceAssets: [payAsset], destinationAsset: settlementAsset, destinationAmount: amount });
    const best = paths.filter((p) => sameAsset(p.sourceAsset, payAsset)).sort((a, b) => (a.sourceAmount < b.sourceAmount ? -1 : 1))[0];
    if (!best) throw badRequest(`No path from ${assetKey(payAsset)} to ${assetKey(settlementAsset)} for this amount`);
    // No ledger amount exceeds MAX_STROOPS: the slippage stops there.
    sendMax = capStroops((best.sourceAmount * (100n + SLIPPAGE_PERCENT) + 99n) / 100n);
    operation = Operation.pathPaymentStrictReceive({
      sendAsset: toSdkAsset(payAsset),
      sendMax: formatStroops(sendMax),
      destination,
      destAsset: toSdkAsset(settlementAsset),
      destAmount: formatStroops(amount),
      path: best.path.map(toSdkAsset),
    });
  }
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  const tx = new TransactionBuilder(new Account(payer.id, payer.sequence), {
    fee: MAX_FEE,
    networkPassphrase: payment.networkPassphrase,
    timebounds: { minTime: 0, maxTime: now + VALIDITY_SECONDS },
  })
    .addOperation(operation)
    .build();
  return { xdr: tx.toEnvelope().toXDR("base64"), networkPassphrase: payment.networkPassphrase, payAsset, sendMax, amount };
}

/** Why the transaction does not pay `payment`, or null when one of its operations does. */
function whyNotPaying(tx: Transaction, payment: Payment): string | null {
  const settlementAsset = settlementAssetOf(payment);
  const memoId = tx.memo.type === "id" ? String(tx.memo.value) : null;
  const reasons = new Set<string>();
  for (const op of tx.operations) {
    let destination: string;
    let asset;
    let received: string;
    if (op.type === "payment") [destination, asset, received] = [op.destination, op.asset, op.amount];
    else if (op.type === "pathPaymentStrictReceive") [destination, asset, received] = [op.destination, op.destAsset, op.destAmount];
    else if (op.type === "pathPaymentStrictSend") [destination, asset, received] = [op.destination, op.destAsset, op.destMin];
    else continue;
    const muxed = destination.startsWith("M") ? MuxedAccount.fromAddress(destination, "0") : null;
    const base = muxed ? muxed.baseAccount().accountId() : destination;
    const correlation = muxed ? muxed.id() : memoId;
    const opAsset: Asset = asset.isNative() ? { code: "XLM", issuer: null } : { code: asset.getCode(), issuer: asset.getIssuer() };
    if (base !== payment.settlementAddress) reasons.add("destination is not the settlement wallet");
    else if (correlation !== payment.memoId) reasons.add("memo or muxed id is not this payment's");
    else if (!sameAsset(opAsset, settlementAsset)) reasons.add(`asset is not ${assetKey(settlementAsset)}`);
    else if (toStroops(received) < remainingOf(payment)) reasons.add(`amount is less than ${formatStroops(remainingOf(payment))}`);
    else return null;
  }
  return reasons.size ? [...reasons].join("; ") : "no payment operation";
}

/** A signature by the transaction's source account over its hash for this network. */
function signedBySource(tx: Transaction): boolean {
  const sourceId = tx.source.startsWith("M") ? MuxedAccount.fromAddress(tx.source, "0").baseAccount().accountId() : tx.source;
  const key = Keypair.fromPublicKey(sourceId);
  const hash = tx.hash();
  return tx.signatures.some((s) => s.hint().equals(key.signatureHint()) && key.verify(hash, s.signature()));
}

export async function submitCheckoutTransaction(
  deps: CheckoutDeps,
  input: { paymentId: string; signedXdr: string },
): Promise<CheckoutSubmission> {
  const payment = await pendingPayment(deps, input.paymentId);
  let envelope;
  try {
    envelope = TransactionBuilder.fromXDR(input.signedXdr, payment.networkPassphrase);
  } catch {
    throw badRequest("signedXdr is not a transaction envelope");
  }
  const tx = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  if (!signedBySource(tx)) throw badRequest("signedXdr is not signed by its source account for this payment's network");
  const reason = whyNotPaying(tx, payment);
  if (reason) throw badRequest(`signedXdr does not pay this payment: ${reason}`);

  const result = await deps.ledger.sourceFor(payment.networkPassphrase).submitTransaction(input.signedXdr);
  if (result.successful) return { txHash: result.hash, successful: true, resultCodes: [], paymentStatus: payment.status };
  const codes = [result.resultCodes.transaction, ...result.resultCodes.operations];
  // Refused before any ledger (bad sequence, fee, timing): nothing happened, the payer may retry.
  if (!/^tx_(fee_bump_inner_)?failed$/.test(result.resultCodes.transaction)) {
    throw badRequest(`The network refused the transaction: ${codes.join(", ")}`);
  }
  const failed = await deps.db.$transaction((t) => failPayment(t, deps, payment, codes.join(", ")));
  return { txHash: result.hash, successful: false, resultCodes: codes, paymentStatus: failed.status };
}

/**
 * Sandbox only: pays the payment from a throwaway account funded by friendbot, signed here. For a
 * credit settlement asset on the simulated network the test wallet gets a trustline holding the
 * amount (the simulated network can issue); on the real test network it pays XLM through a path.
 */
export async function payWithTestWallet(deps: CheckoutDeps, input: { paymentId: string }): Promise<CheckoutSubmission> {
  const payment = await pendingPayment(deps, input.paymentId);
  if (payment.environment !== "sandbox" || payment.networkPassphrase !== Networks.TESTNET) {
    throw badRequest("Test wallets exist only in sandbox");
  }
  const source = deps.ledger.sourceFor(payment.networkPassphrase);
  const payer = Keypair.random();
  await source.fundTestAccount!(payer.publicKey());
  const settlementAsset = settlementAssetOf(payment);
  let payAsset = settlementAsset;
  if (!isNative(settlementAsset)) {
    const simulated = deps.ledger.simulatedNetwork(payment.networkPassphrase);
    if (simulated) {
      simulated.setTrustline(payer.publicKey(), toSdkAsset(settlementAsset), { balance: formatStroops(remainingOf(payment)) });
    } else {
      payAsset = { code: "XLM", issuer: null };
    }
  }
  const prepared = await prepareCheckoutTransaction(deps, { paymentId: payment.id, payerAddress: payer.publicKey(), payAsset });
  const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase);
  tx.sign(payer);
  return submitCheckoutTransaction(deps, { paymentId: payment.id, signedXdr: tx.toEnvelope().toXDR("base64") });
}
