// The payer's side of the checkout: build the unsigned transaction that pays a payment exactly,
// check and submit the transaction the payer's wallet signed, and (sandbox only) pay with a
// throwaway test wallet. Public: the payment id is the only credential, as on the checkout page.
// Completion itself always comes from the ledger streamer, never from here: one path, counted once.
//
// Anyone who knows the id may call these, so a submitted transaction must be exactly what prepare
// builds (one payment to this payment, from the signer, nothing else): a stranger cannot attach an
// operation that makes the transaction fail and so mark the payment failed. A failure of such a
// transaction is the payer's own (e.g. underfunded) and records `failed`, which is not final until
// the payment expires (payment-states.ts): the payer may pay again.
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
import { DomainError, badRequest, conflict, notFound } from "../../errors.ts";
import { toSdkAsset } from "../../ledger/horizon-source.ts";
import type { LedgerNetworks } from "../../ledger/ledger-source.ts";
import { type Asset, assetKey, isNative, isStellarAddress, parseAssetList, sameAsset } from "../../shared/assets.ts";
import { capStroops, formatStroops, toStroops } from "../../shared/money.ts";
import { runIdempotently } from "../idempotency/idempotency.service.ts";
import { failPayment } from "../payments/payment-failure.ts";
import { muxedAddress } from "../payments/payment-instructions.ts";
import { hasExpired } from "../payments/payment-states.ts";
import { paymentById } from "../payments/payments.store.ts";

export type CheckoutDeps = Deps & { ledger: LedgerNetworks };

/**
 * Whether a payer can pay in `asset` on a network watched through `source`: any asset where it finds
 * paths (Horizon), only the settlement asset where it finds none (Stellar RPC without a Horizon URL),
 * since any other asset needs a path payment, which could be neither quoted nor prepared there.
 */
const payableThrough = (source: { findsPaths: boolean }, settlement: Asset, asset: Asset) => source.findsPaths || sameAsset(asset, settlement);

/** The assets a payer may choose at the checkout (payableThrough). */
export function payableAssets(ledger: LedgerNetworks | null | undefined, view: { sandbox: boolean; settlementAsset: Asset | null; allowedAssets: Asset[] }): Asset[] {
  const settlement = view.settlementAsset;
  if (!ledger || !settlement) return view.allowedAssets;
  const source = ledger.sourceFor(view.sandbox ? Networks.TESTNET : Networks.PUBLIC);
  return view.allowedAssets.filter((asset) => payableThrough(source, settlement, asset));
}

/** How much more a path payment may spend than the quote, in percent. */
const SLIPPAGE_PERCENT = 1n;
/** The most the payer's transaction may pay in fees, in stroops. */
const MAX_FEE = "10000";
/** How long a prepared transaction stays valid. */
const VALIDITY_SECONDS = 15 * 60;
/** Clock difference allowed between the process that prepared a transaction and the one that submits it. */
const CLOCK_SKEW_SECONDS = 60;

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

/** The payment, if the payer may pay it now: awaiting payment (pending, or failed before) and unexpired. */
async function payablePayment(deps: CheckoutDeps, paymentId: string): Promise<Payment> {
  const payment = await paymentById(deps.db, paymentId);
  if (!payment) throw notFound();
  if (payment.status === "completed") throw conflict("Payment is already completed");
  if (hasExpired(payment, deps.clock.now())) throw conflict("Payment has expired");
  return payment;
}

export interface AssetQuote {
  asset: Asset;
  /** what the amount still due costs in `asset` now: the cheapest path's source amount, no slippage */
  amount: bigint;
}

/**
 * The price in every allowed asset, before the payer chooses one and without a payer account: the
 * settlement asset at the amount still due, every other asset at the cheapest strict-receive path
 * the ledger quotes now (one path request for all). An asset without a path has no quote. Quotes are
 * a courtesy: a ledger that does not answer leaves only the settlement price, never breaks the page,
 * and prepareCheckoutTransaction quotes again (with the slippage allowance) when the payer pays.
 */
export async function quoteCheckoutAssets(deps: CheckoutDeps, paymentId: string): Promise<AssetQuote[]> {
  const payment = await paymentById(deps.db, paymentId);
  if (!payment || payment.status === "completed" || hasExpired(payment, deps.clock.now())) return [];
  const settlementAsset = settlementAssetOf(payment);
  const amount = remainingOf(payment);
  const others = parseAssetList(payment.allowedAssets).filter((a) => !sameAsset(a, settlementAsset));
  const quotes: AssetQuote[] = [{ asset: settlementAsset, amount }];
  if (others.length === 0 || amount === 0n) return quotes;
  const paths = await deps.ledger
    .sourceFor(payment.networkPassphrase)
    .findStrictReceivePaths({ sourceAssets: others, destinationAsset: settlementAsset, destinationAmount: amount })
    .catch(() => []);
  for (const asset of others) {
    const cheapest = paths.filter((p) => sameAsset(p.sourceAsset, asset)).reduce<bigint | null>((min, p) => (min === null || p.sourceAmount < min ? p.sourceAmount : min), null);
    if (cheapest !== null) quotes.push({ asset, amount: cheapest });
  }
  return quotes;
}

export async function prepareCheckoutTransaction(
  deps: CheckoutDeps,
  input: { paymentId: string; payerAddress: string; payAsset?: Asset | null },
): Promise<PreparedTransaction> {
  const payment = await payablePayment(deps, input.paymentId);
  if (!isStellarAddress(input.payerAddress)) throw badRequest("payerAddress must be a Stellar public key (G...)", { path: ["payer_address"], problem: "must be a Stellar public key (G...)" });
  const settlementAsset = settlementAssetOf(payment);
  const payAsset = input.payAsset ?? settlementAsset;
  const allowed = [settlementAsset, ...parseAssetList(payment.allowedAssets)];
  if (!allowed.some((a) => sameAsset(a, payAsset))) {
    throw badRequest(`payAsset ${assetKey(payAsset)} is not allowed for this payment`, { path: ["pay_asset"], problem: `${payAsset.code} is not accepted for this payment; pay in one of the assets shown` });
  }

  const source = deps.ledger.sourceFor(payment.networkPassphrase);
  if (!payableThrough(source, settlementAsset, payAsset)) {
    throw badRequest(`payAsset ${assetKey(payAsset)} needs a path payment, and this network is watched through Stellar RPC, which finds no paths: pay in ${assetKey(settlementAsset)}`, {
      path: ["pay_asset"],
      problem: `only ${settlementAsset.code} can be paid on this network (watched through Stellar RPC, which finds no paths); pay in ${settlementAsset.code}`,
    });
  }
  const payer = await source.loadAccount(input.payerAddress);
  if (!payer) {
    throw badRequest("payerAddress is not an account on the ledger (fund it first)", { path: ["payer_address"], problem: "no account has this address on the ledger yet; fund it first, or pay from another wallet" });
  }

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

const assetOf = (asset: { isNative(): boolean; getCode(): string; getIssuer(): string }): Asset =>
  asset.isNative() ? { code: "XLM", issuer: null } : { code: asset.getCode(), issuer: asset.getIssuer() };

/**
 * Why `tx` is not what prepareCheckoutTransaction builds for `payment`, or null when it is: one
 * payment (or strict-receive path payment from an allowed asset) of at least what is still owed, in
 * the settlement asset, to this payment's muxed destination (or the settlement wallet with its id
 * memo), from the transaction's source, within prepare's fee and time bounds, and nothing else.
 */
function whyNotPrepared(tx: Transaction, payment: Payment, now: Date): string | null {
  const notPaying = (reason: string) => `signedXdr does not pay this payment: ${reason}`;
  const notPrepared = (reason: string) => `signedXdr must be the transaction prepareCheckoutTransaction built: ${reason}`;
  if (tx.operations.length !== 1) return notPrepared(`it must have exactly one operation, not ${tx.operations.length}`);
  const op = tx.operations[0]!;
  if (op.source !== undefined && op.source !== tx.source) return notPrepared("the operation's source must be the transaction's source");
  let destination: string;
  let received: string;
  if (op.type === "payment") {
    if (!sameAsset(assetOf(op.asset), settlementAssetOf(payment))) return notPaying(`asset is not ${assetKey(settlementAssetOf(payment))}`);
    [destination, received] = [op.destination, op.amount];
  } else if (op.type === "pathPaymentStrictReceive") {
    if (!sameAsset(assetOf(op.destAsset), settlementAssetOf(payment))) return notPaying(`asset is not ${assetKey(settlementAssetOf(payment))}`);
    const allowed = [settlementAssetOf(payment), ...parseAssetList(payment.allowedAssets)];
    if (!allowed.some((a) => sameAsset(a, assetOf(op.sendAsset)))) return notPaying(`it pays with ${assetKey(assetOf(op.sendAsset))}, which is not allowed`);
    [destination, received] = [op.destination, op.destAmount];
  } else {
    return notPrepared("its operation must be a payment or a strict-receive path payment");
  }
  const muxed = destination.startsWith("M") ? MuxedAccount.fromAddress(destination, "0") : null;
  const memoId = tx.memo.type === "id" ? String(tx.memo.value) : null;
  if ((muxed ? muxed.baseAccount().accountId() : destination) !== payment.settlementAddress) return notPaying("destination is not the settlement wallet");
  if ((muxed ? muxed.id() : memoId) !== payment.memoId) return notPaying("memo or muxed id is not this payment's");
  if (toStroops(received) < remainingOf(payment)) return notPaying(`amount is less than ${formatStroops(remainingOf(payment))}`);
  if (tx.memo.type !== "none" && memoId !== payment.memoId) return notPrepared("its memo must be none or this payment's id memo");

  if (!tx.source.startsWith("G")) return notPrepared("its source must be the payer's G... account");
  if (BigInt(tx.fee) > BigInt(MAX_FEE)) return notPrepared(`its fee must be at most ${MAX_FEE} stroops`);
  const seconds = Math.floor(now.getTime() / 1000);
  const bounds = tx.timeBounds;
  if (!bounds || bounds.maxTime === "0" || Number(bounds.maxTime) > seconds + VALIDITY_SECONDS + CLOCK_SKEW_SECONDS) {
    return notPrepared(`it must expire within ${VALIDITY_SECONDS / 60} minutes`);
  }
  if (Number(bounds.minTime) > seconds + CLOCK_SKEW_SECONDS) return notPrepared("its time bounds must allow it now");
  if (tx.ledgerBounds || tx.minAccountSequence !== undefined || tx.minAccountSequenceAge || tx.minAccountSequenceLedgerGap || tx.extraSigners?.length) {
    return notPrepared("it must carry no other preconditions");
  }
  return null;
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
  const payment = await payablePayment(deps, input.paymentId);
  let tx;
  try {
    tx = TransactionBuilder.fromXDR(input.signedXdr, payment.networkPassphrase);
  } catch {
    throw badRequest("signedXdr is not a transaction envelope");
  }
  // A fee bump may fail on its outer fee alone, whoever wrapped the payer's transaction: only prepare's shape.
  if (tx instanceof FeeBumpTransaction) throw badRequest("signedXdr must be the transaction prepareCheckoutTransaction built: not a fee bump");
  if (!signedBySource(tx)) throw badRequest("signedXdr is not signed by its source account for this payment's network");
  const refusal = whyNotPrepared(tx, payment, deps.clock.now());
  if (refusal) throw badRequest(refusal);

  const result = await deps.ledger.sourceFor(payment.networkPassphrase).submitTransaction(input.signedXdr);
  if (result.successful) return { txHash: result.hash, successful: true, resultCodes: [], paymentStatus: payment.status };
  const codes = [result.resultCodes.transaction, ...result.resultCodes.operations];
  // Refused before any ledger (bad sequence, fee, timing): nothing happened, the payer may retry.
  if (result.resultCodes.transaction !== "tx_failed") {
    throw badRequest(`The network refused the transaction: ${codes.join(", ")}`);
  }
  const failure = { txHash: result.hash, successful: false, resultCodes: codes };
  try {
    const failed = await deps.db.$transaction((t) => failPayment(t, deps, payment, codes.join(", ")));
    return { ...failure, paymentStatus: failed.status };
  } catch (error) {
    // Completed (another payment) or expired meanwhile: that status stands, this attempt changed nothing.
    if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
    const now = await paymentById(deps.db, payment.id);
    return { ...failure, paymentStatus: now!.status };
  }
}

/**
 * The claims of test-wallet payments, as Idempotency-Key records in a namespace of their own (no
 * API key has this id): the record's primary key lets one call per payment pay, in whichever process.
 */
const TEST_WALLET_CLAIMS = "checkout:payWithTestWallet";

/** A test-wallet payment that failed on the ledger: its claim is released, so the payer may try again. */
class TestWalletAttemptFailed extends Error {
  constructor(readonly submission: CheckoutSubmission) {
    super("the test wallet's transaction failed on the ledger");
  }
}

/**
 * Sandbox only: pays the payment from a throwaway account funded by friendbot, signed here. At most
 * once per payment, across processes: the first call claims the payment (runIdempotently), calls
 * meanwhile wait for its answer and get it, as do calls after it succeeded (the ledger completes the
 * payment moments later, then calls are refused as completed). A failed attempt or an error releases
 * the claim; a claim whose process died is taken over after a few minutes.
 */
export async function payWithTestWallet(deps: CheckoutDeps, input: { paymentId: string }): Promise<CheckoutSubmission> {
  const payment = await payablePayment(deps, input.paymentId);
  if (payment.environment !== "sandbox" || payment.networkPassphrase !== Networks.TESTNET) {
    throw badRequest("Test wallets exist only in sandbox");
  }
  try {
    const { response } = await runIdempotently(
      deps,
      { apiKeyId: TEST_WALLET_CLAIMS, key: payment.id, requestHash: TEST_WALLET_CLAIMS },
      async () => {
        const submission = await payFromThrowawayWallet(deps, payment);
        if (!submission.successful) throw new TestWalletAttemptFailed(submission);
        return { status: 200, body: JSON.stringify(submission) };
      },
    );
    return JSON.parse(response.body) as CheckoutSubmission;
  } catch (error) {
    if (error instanceof TestWalletAttemptFailed) return error.submission;
    throw error;
  }
}

async function payFromThrowawayWallet(deps: CheckoutDeps, payment: Payment): Promise<CheckoutSubmission> {
  // Read again under the claim: a call that waited for an attempt that failed pays what is owed now.
  const current = await payablePayment(deps, payment.id);
  const source = deps.ledger.sourceFor(current.networkPassphrase);
  const payer = Keypair.random();
  await source.fundTestAccount!(payer.publicKey());
  const settlementAsset = settlementAssetOf(current);
  let payAsset = settlementAsset;
  if (!isNative(settlementAsset)) {
    const simulated = deps.ledger.simulatedNetwork(current.networkPassphrase);
    if (simulated) {
      simulated.setTrustline(payer.publicKey(), toSdkAsset(settlementAsset), { balance: formatStroops(remainingOf(current)) });
    } else {
      payAsset = { code: "XLM", issuer: null };
    }
  }
  const prepared = await prepareCheckoutTransaction(deps, { paymentId: current.id, payerAddress: payer.publicKey(), payAsset });
  const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase);
  tx.sign(payer);
  return submitCheckoutTransaction(deps, { paymentId: current.id, signedXdr: tx.toEnvelope().toXDR("base64") });
}
