// The refund's ledger transaction: built here, signed by the merchant in their own wallet, checked
// here again when it comes back. One operation from the settlement wallet: a payment to the
// destination, or a claimable balance for it when it holds no trustline for the asset. Its memo is
// the destination's own (an exchange's deposit memo), else the refund's id as text, so that a
// transaction signed and sent elsewhere is still recognized on the ledger (refunds.recognition.ts).
import {
  Account,
  Claimant,
  FeeBumpTransaction,
  Keypair,
  Memo,
  Operation,
  type Transaction,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import type { Refund } from "../../generated/sqlite/client.ts";
import { badRequest } from "../../errors.ts";
import { toSdkAsset } from "../../ledger/horizon-source.ts";
import { type Asset, assetKey, sameAsset } from "../../shared/assets.ts";
import { formatStroops, toStroops } from "../../shared/money.ts";

/** The most the merchant's transaction may pay in fees, in stroops. */
const MAX_FEE = "10000";
/** How long a built transaction stays valid: time to open a wallet and sign. A read builds a new one. */
const REFUND_VALIDITY_SECONDS = 30 * 60;
/** Clock difference allowed between the process that built a transaction and the one that checks it. */
const CLOCK_SKEW_SECONDS = 60;

export type RefundMemoType = "id" | "text" | "hash";

/** The memo of a refund's transaction: the destination's own, else the refund's id (27 characters, within text's 28 bytes). */
function refundMemo(refund: Pick<Refund, "id" | "destinationMemo" | "destinationMemoType">): Memo {
  if (refund.destinationMemo === null) return Memo.text(refund.id);
  switch (refund.destinationMemoType as RefundMemoType) {
    case "id":
      return Memo.id(refund.destinationMemo);
    case "hash":
      return Memo.hash(refund.destinationMemo);
    default:
      return Memo.text(refund.destinationMemo);
  }
}

/**
 * Why `memo` of `type` cannot be a Stellar memo, or null: an id is an unsigned 64-bit integer, a text
 * at most 28 bytes, a hash 32 bytes in hex.
 */
export function whyNotMemo(memo: string, type: RefundMemoType): string | null {
  try {
    if (type === "id") Memo.id(memo);
    else if (type === "hash") Memo.hash(memo);
    else Memo.text(memo);
    return null;
  } catch {
    if (type === "id") return "must be an unsigned 64-bit integer for memo_type id";
    if (type === "hash") return "must be 64 hexadecimal characters for memo_type hash";
    return "must be at most 28 bytes for memo_type text";
  }
}

const assetOfRefund = (refund: Refund): Asset => ({ code: refund.assetCode, issuer: refund.assetIssuer });

/** The operation that sends the refund: a payment, or a claimable balance the destination claims later. */
function refundOperation(refund: Refund, claimable: boolean) {
  const asset = toSdkAsset(assetOfRefund(refund));
  const amount = formatStroops(refund.amount);
  const destination = refund.destinationAddress!;
  if (!claimable) return Operation.payment({ destination, asset, amount });
  return Operation.createClaimableBalance({ asset, amount, claimants: [new Claimant(destination, Claimant.predicateUnconditional())] });
}

/**
 * The unsigned transaction (base64 envelope XDR) that pays `refund` from its settlement wallet at
 * the wallet's next `sequence`, valid from now for REFUND_VALIDITY_SECONDS.
 */
export function buildRefundTransaction(refund: Refund, input: { sequence: string; claimable: boolean; now: Date }): string {
  const now = Math.floor(input.now.getTime() / 1000);
  const tx = new TransactionBuilder(new Account(refund.sourceAddress, input.sequence), {
    fee: MAX_FEE,
    networkPassphrase: refund.networkPassphrase,
    timebounds: { minTime: 0, maxTime: now + REFUND_VALIDITY_SECONDS },
    memo: refundMemo(refund),
  })
    .addOperation(refundOperation(refund, input.claimable))
    .build();
  return tx.toEnvelope().toXDR("base64");
}

/** SEP-7's `tx` operation: a mobile wallet signs (and may submit) the whole transaction. */
export function sep7TransactionUri(xdr: string, networkPassphrase: string): string {
  return `web+stellar:tx?xdr=${encodeURIComponent(xdr)}&network_passphrase=${encodeURIComponent(networkPassphrase)}`;
}

const assetOf = (asset: { isNative(): boolean; getCode(): string; getIssuer(): string }): Asset =>
  asset.isNative() ? { code: "XLM", issuer: null } : { code: asset.getCode(), issuer: asset.getIssuer() };

const sameMemo = (a: Memo, b: Memo) => a.toXDRObject().toXDR("base64") === b.toXDRObject().toXDR("base64");

/** What the transaction sends, if it is one refund operation (a payment or a claimable balance for one claimant). */
function refundSentBy(tx: Transaction): { destination: string; asset: Asset; amount: bigint; claimable: boolean } | null {
  if (tx.operations.length !== 1) return null;
  const op = tx.operations[0]!;
  if (op.source !== undefined && op.source !== tx.source) return null;
  if (op.type === "payment") return { destination: op.destination, asset: assetOf(op.asset), amount: toStroops(op.amount), claimable: false };
  if (op.type === "createClaimableBalance" && op.claimants.length === 1) {
    return { destination: op.claimants[0]!.destination, asset: assetOf(op.asset), amount: toStroops(op.amount), claimable: true };
  }
  return null;
}

/**
 * Why `tx` is not `refund`'s transaction as buildRefundTransaction makes it, or null when it is:
 * from the settlement wallet, one payment (or claimable balance) of exactly the amount and asset to
 * the destination, with the refund's memo, within the fee and time bounds, nothing else.
 */
function whyNotRefund(tx: Transaction, refund: Refund, now: Date): string | null {
  const field = "signed_transaction_xdr";
  if (tx.source !== refund.sourceAddress) return `${field} must be sent from the settlement wallet ${refund.sourceAddress}`;
  const sent = refundSentBy(tx);
  if (!sent) return `${field} must have exactly one payment or claimable balance operation`;
  if (sent.destination !== refund.destinationAddress) return `${field} must pay the refund's destination ${refund.destinationAddress}`;
  if (!sameAsset(sent.asset, assetOfRefund(refund))) return `${field} must pay in ${assetKey(assetOfRefund(refund))}`;
  if (sent.amount !== refund.amount) return `${field} must pay exactly ${formatStroops(refund.amount)}`;
  if (!sameMemo(tx.memo, refundMemo(refund))) return `${field} must carry the refund's memo`;
  if (BigInt(tx.fee) > BigInt(MAX_FEE)) return `${field} must pay at most ${MAX_FEE} stroops in fees`;
  const seconds = Math.floor(now.getTime() / 1000);
  const bounds = tx.timeBounds;
  if (!bounds || bounds.maxTime === "0" || Number(bounds.maxTime) > seconds + REFUND_VALIDITY_SECONDS + CLOCK_SKEW_SECONDS) {
    return `${field} must expire within ${REFUND_VALIDITY_SECONDS / 60} minutes`;
  }
  if (Number(bounds.maxTime) < seconds) return `${field} has expired: read the refund again for a new transaction`;
  if (tx.ledgerBounds || tx.minAccountSequence !== undefined || tx.minAccountSequenceAge || tx.minAccountSequenceLedgerGap || tx.extraSigners?.length) {
    return `${field} must carry no other preconditions`;
  }
  return null;
}

/** A valid signature by `address`'s key over the transaction's hash on its network. */
function signedBy(tx: Transaction, address: string): boolean {
  const key = Keypair.fromPublicKey(address);
  const hash = tx.hash();
  return tx.signatures.some((s) => s.hint().equals(key.signatureHint()) && key.verify(hash, s.signature()));
}

/**
 * The signed transaction of `refund`, checked: a 400 naming signed_transaction_xdr when it is not
 * an envelope, not the refund's transaction, or not signed by the settlement wallet's key. Returns
 * its hash (which signatures do not change).
 */
export function checkSignedRefund(refund: Refund, signedXdr: string, now: Date): { hash: string } {
  let tx;
  try {
    tx = TransactionBuilder.fromXDR(signedXdr, refund.networkPassphrase);
  } catch {
    throw badRequest("signed_transaction_xdr is not a transaction envelope");
  }
  if (tx instanceof FeeBumpTransaction) throw badRequest("signed_transaction_xdr must be the refund's transaction, not a fee bump");
  const refusal = whyNotRefund(tx, refund, now);
  if (refusal) throw badRequest(refusal);
  if (!signedBy(tx, refund.sourceAddress)) throw badRequest(`signed_transaction_xdr must be signed by the settlement wallet's key (${refund.sourceAddress}) for this network`);
  return { hash: tx.hash().toString("hex") };
}
