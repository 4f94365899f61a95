// A transaction's life in the simulated network, modelled on stellar-core:
// - checkTransaction(): the validity check done on submission and again when the ledger closes
//   (network via the signatures, source account, sequence number, fee, time bounds, signatures,
//   static operation checks). A transaction that fails it is rejected: nothing is consumed.
// - applyTransaction(): in a ledger, the fee is charged and the sequence number consumed first;
//   then the operations run all-or-nothing. A failed operation makes the transaction "tx_failed":
//   it is still in the ledger, and the fee and sequence number stay consumed.
import { FeeBumpTransaction, StrKey, type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { type AccountRef, accountRef } from "./assets.ts";
import { verifyEd25519 } from "./ed25519.ts";
import { applyOperation, checkOperation, operationSource } from "./operations.ts";
import type { OpOutcome, TransactionResultInput, TxCode } from "./result-xdr.ts";
import { type AccountEntry, BASE_FEE, LedgerOverlay, type LedgerState, availableBalance } from "./state.ts";

export class MalformedEnvelopeError extends Error {}

/** A submitted envelope, normalized so plain and fee-bump transactions are handled alike. */
export interface Envelope {
  /** The transaction whose operations run: the envelope's own, or a fee bump's inner transaction. */
  tx: Transaction;
  feeBump?: FeeBumpTransaction;
  /** Hex hash of the submitted envelope (for a fee bump, the fee bump's own hash). */
  hash: string;
  /** Hex hash of a fee bump's inner transaction. */
  innerHash?: string;
  envelopeXdr: string;
  source: AccountRef;
  /** Who pays the fee: the fee bump's fee source, or the transaction's source. */
  feeSource: AccountRef;
  /** The fee bid of the envelope (outer fee for fee bumps). */
  maxFee: bigint;
  sequence: bigint;
}

/**
 * Decodes base64 envelope XDR with this network's passphrase. The hashes are therefore this
 * network's: signatures made for another network do not verify (tx_bad_auth), as on Stellar.
 */
export function parseEnvelope(envelopeXdr: string, networkPassphrase: string): Envelope {
  try {
    const parsed = TransactionBuilder.fromXDR(envelopeXdr, networkPassphrase);
    const tx = parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed;
    const envelope: Envelope = {
      tx,
      hash: parsed.hash().toString("hex"),
      envelopeXdr: parsed.toEnvelope().toXDR("base64"),
      source: accountRef(tx.source),
      feeSource: accountRef(parsed instanceof FeeBumpTransaction ? parsed.feeSource : tx.source),
      maxFee: BigInt(parsed.fee),
      sequence: BigInt(tx.sequence),
    };
    if (parsed instanceof FeeBumpTransaction) {
      envelope.feeBump = parsed;
      envelope.innerHash = tx.hash().toString("hex");
    }
    return envelope;
  } catch (error) {
    throw new MalformedEnvelopeError(error instanceof Error ? error.message : String(error));
  }
}

/** No surge pricing here: every transaction pays the base fee per operation (+1 for a fee bump). */
const chargedFee = (envelope: Envelope): bigint =>
  BASE_FEE * BigInt(envelope.tx.operations.length + (envelope.feeBump ? 1 : 0));

export interface ValidationContext {
  account(id: string): AccountEntry | undefined;
  /** The number the account's next transaction must follow; on submission it counts queued ones. */
  sequenceOf(id: string): bigint | undefined;
  /** The ledger the transaction would be in, and its close time in unix seconds. */
  ledger: number;
  closeTime: bigint;
  /** Set when the network itself records a contract call (recordContractTransfer); submitted ones are not supported. */
  contractCall?: boolean;
}

/** Which signatures of a transaction verify against the hash, and which were needed. */
class SignatureChecker {
  private readonly used = new Set<number>();

  constructor(
    private readonly hash: Buffer,
    private readonly signatures: xdr.DecoratedSignature[],
  ) {}

  /** Is there a valid signature by this ed25519 key (master key weight 1, thresholds 0/1)? */
  signedBy(publicKey: string): boolean {
    const raw = StrKey.decodeEd25519PublicKey(publicKey);
    const hint = raw.subarray(raw.length - 4); // a signature's hint is the key's last 4 bytes
    let found = false;
    this.signatures.forEach((decorated, index) => {
      if (!decorated.hint().equals(hint)) return;
      if (verifyEd25519(raw, this.hash, decorated.signature())) {
        this.used.add(index);
        found = true;
      }
    });
    return found;
  }

  allUsed(): boolean {
    return this.used.size === this.signatures.length;
  }
}

type InnerRejection = { code: TxCode; operations?: OpOutcome[] };

/** The extra signers of a V2 precondition as G... keys; undefined if one is of another kind. */
function extraSignerKeys(tx: Transaction): string[] | undefined {
  const keys: string[] = [];
  for (const signer of (tx.extraSigners ?? []) as unknown[]) {
    if (typeof signer === "string") {
      if (!StrKey.isValidEd25519PublicKey(signer)) return undefined;
      keys.push(signer);
    } else if (signer instanceof xdr.SignerKey && signer.switch().name === "signerKeyTypeEd25519") {
      keys.push(StrKey.encodeEd25519PublicKey(signer.ed25519()));
    } else {
      return undefined;
    }
  }
  return keys;
}

function checkInner(envelope: Envelope, ctx: ValidationContext, paysOwnFee: boolean): InnerRejection | null {
  const { tx } = envelope;
  const fee = chargedFee(envelope);
  if (tx.operations.length === 0) return { code: "txMissingOperation" };

  if (tx.timeBounds) {
    if (BigInt(tx.timeBounds.minTime) > ctx.closeTime) return { code: "txTooEarly" };
    const maxTime = BigInt(tx.timeBounds.maxTime);
    if (maxTime !== 0n && ctx.closeTime > maxTime) return { code: "txTooLate" };
  }
  if (tx.ledgerBounds) {
    if (tx.ledgerBounds.minLedger > ctx.ledger) return { code: "txTooEarly" };
    if (tx.ledgerBounds.maxLedger !== 0 && ctx.ledger >= tx.ledgerBounds.maxLedger) return { code: "txTooLate" };
  }
  if (paysOwnFee && envelope.maxFee < BASE_FEE * BigInt(tx.operations.length)) return { code: "txInsufficientFee" };

  const source = ctx.account(envelope.source.account);
  if (!source) return { code: "txNoAccount" };

  const current = ctx.sequenceOf(source.id) ?? source.sequence;
  const minSequence = tx.minAccountSequence === undefined ? undefined : BigInt(tx.minAccountSequence);
  const sequenceOk =
    minSequence === undefined
      ? envelope.sequence === current + 1n
      : minSequence <= current && current < envelope.sequence;
  if (!sequenceOk) return { code: "txBadSeq" };
  const minAge = BigInt(String(tx.minAccountSequenceAge ?? 0));
  const minGap = Number(tx.minAccountSequenceLedgerGap ?? 0);
  if ((minAge > 0n && ctx.closeTime - source.sequenceTime < minAge) || (minGap > 0 && ctx.ledger - source.sequenceLedger < minGap)) {
    return { code: "txBadMinSeqAgeOrGap" };
  }

  const signatures = new SignatureChecker(tx.hash(), tx.signatures);
  if (!signatures.signedBy(source.id)) return { code: "txBadAuth" };
  if (paysOwnFee && availableBalance(source) < fee) return { code: "txInsufficientBalance" };

  // Operation sources must have signed too; missing ones fail the operation with op_bad_auth.
  const outcomes = tx.operations.map((op): OpOutcome => {
    const opSource = operationSource(op, tx.source);
    if (!signatures.signedBy(opSource.account)) return { type: op.type, code: "opBadAuth" };
    const check = ctx.contractCall && op.type === "invokeHostFunction" ? null : checkOperation(op, opSource);
    return check ?? { type: op.type, code: "success" };
  });
  if (outcomes.some((outcome) => outcome.code !== "success")) return { code: "txFailed", operations: outcomes };

  const extraSigners = extraSignerKeys(tx);
  if (!extraSigners) return { code: "txNotSupported" };
  if (!extraSigners.every((key) => signatures.signedBy(key))) return { code: "txBadAuth" };
  if (!signatures.allUsed()) return { code: "txBadAuthExtra" };
  return null;
}

/** The transaction-level rejection, or null if the transaction may go into the ledger. */
export function checkTransaction(envelope: Envelope, ctx: ValidationContext): TransactionResultInput | null {
  const feeCharged = chargedFee(envelope);
  if (!envelope.feeBump) {
    const rejection = checkInner(envelope, ctx, true);
    return rejection && { feeCharged, ...rejection };
  }

  // A fee bump: the outer envelope's own checks, then the inner transaction's (reported wrapped).
  const outer = (code: TxCode): TransactionResultInput => ({ feeCharged, code });
  if (envelope.maxFee < feeCharged) return outer("txInsufficientFee");
  const feeSource = ctx.account(envelope.feeSource.account);
  if (!feeSource) return outer("txNoAccount");
  const signatures = new SignatureChecker(envelope.feeBump.hash(), envelope.feeBump.signatures);
  if (!signatures.signedBy(feeSource.id)) return outer("txBadAuth");
  if (availableBalance(feeSource) < feeCharged) return outer("txInsufficientBalance");
  const inner = checkInner(envelope, ctx, false);
  if (inner) return { feeCharged, ...inner, feeBump: { innerHash: Buffer.from(envelope.innerHash!, "hex") } };
  if (!signatures.allUsed()) return outer("txBadAuthExtra");
  return null;
}

export type ApplyResult =
  | { included: false; result: TransactionResultInput }
  | { included: true; successful: boolean; feeCharged: bigint; outcomes: OpOutcome[]; result: TransactionResultInput };

export const unixSeconds = (date: Date): bigint => BigInt(Math.floor(date.getTime() / 1000));

/** What a contract call the network records does to the ledger (no contract code runs in the simulator). */
export type ContractCall = (scope: LedgerOverlay) => OpOutcome;

/** Applies one transaction in the ledger being closed; `contractCall` stands for its invokeHostFunction operation. */
export function applyTransaction(envelope: Envelope, state: LedgerState, ledger: number, closeTime: Date, contractCall?: ContractCall): ApplyResult {
  const rejection = checkTransaction(envelope, {
    account: (id) => state.accounts.get(id),
    sequenceOf: (id) => state.accounts.get(id)?.sequence,
    ledger,
    closeTime: unixSeconds(closeTime),
    contractCall: contractCall !== undefined,
  });
  if (rejection) return { included: false, result: rejection };

  // The fee and the sequence number are consumed whatever the operations do.
  const feeCharged = chargedFee(envelope);
  const charge = new LedgerOverlay(state);
  charge.account(envelope.feeSource.account)!.balance -= feeCharged;
  const source = charge.account(envelope.source.account)!;
  source.sequence = envelope.sequence;
  source.sequenceLedger = ledger;
  source.sequenceTime = unixSeconds(closeTime);
  charge.commit(ledger, closeTime);

  // Each operation in its own child scope (dropped if it fails); the whole lot commits only if all succeed.
  const txScope = new LedgerOverlay(state);
  const outcomes = envelope.tx.operations.map((op, index) => {
    const opScope = txScope.child();
    const claimableBalanceId = () => envelope.tx.getClaimableBalanceId(index);
    const outcome =
      contractCall && op.type === "invokeHostFunction"
        ? contractCall(opScope)
        : applyOperation(op, opScope, { ledger, closeTime, source: operationSource(op, envelope.tx.source), claimableBalanceId });
    if (outcome.code === "success") opScope.commit(ledger, closeTime);
    return outcome;
  });
  const successful = outcomes.every((outcome) => outcome.code === "success");
  if (successful) txScope.commit(ledger, closeTime);

  const result: TransactionResultInput = { feeCharged, code: successful ? "txSuccess" : "txFailed", operations: outcomes };
  if (envelope.feeBump) result.feeBump = { innerHash: Buffer.from(envelope.innerHash!, "hex") };
  return { included: true, successful, feeCharged, outcomes, result };
}
