// Result codes as stellar-core produces them, as XDR (`TransactionResult`, decodable by the SDK)
// and as the strings Horizon puts in `extras.result_codes`.
import { type Asset, Keypair, xdr } from "@stellar/stellar-sdk";
import type { Fill } from "./order-book.ts";

/**
 * An operation's own result code, named like the suffix of stellar-core's enum members
 * (PAYMENT_NO_TRUST -> "noTrust"), so `${type}${Code}` is the XDR arm (paymentNoTrust).
 */
export type OpReason =
  | "success"
  | "malformed"
  | "underfunded"
  | "srcNoTrust"
  | "noDestination"
  | "noTrust"
  | "lineFull"
  | "noIssuer"
  | "tooFewOffers"
  | "overSendmax"
  | "underDestmin"
  | "lowReserve"
  | "alreadyExist"
  | "invalidLimit"
  | "selfNotAllowed"
  | "trustLineMissing"
  | "cannotDelete"
  | "nameNotFound"
  | "invalidName"
  | "badSeq"
  | "doesNotExist"
  | "cannotClaim"
  | "trapped"
  | "noAccount"
  | "hasSubEntries"
  | "seqnumTooFar"
  | "destFull"
  | "isSponsor";

/** Codes that replace the operation's own result (OperationResultCode). */
export type OpTopCode = "opBadAuth" | "opNoAccount" | "opNotSupported";

export interface PathPaymentSuccess {
  fills: Fill[];
  destination: string;
  asset: Asset;
  amount: bigint;
  sourceAmount: bigint;
}

export interface OpOutcome {
  /** The SDK's operation type, which is also the XDR OperationType name ("pathPaymentStrictSend"). */
  type: string;
  code: OpReason | OpTopCode;
  /** Set for successful path payments: the offers crossed and what was actually exchanged. */
  pathPayment?: PathPaymentSuccess;
  /** Set for a successful createClaimableBalance: the new balance's id (hex of its ClaimableBalanceId XDR). */
  balanceId?: string;
  /** Set for a successful claimClaimableBalance: what the claimant received (the balance is gone after). */
  claimed?: { asset: Asset; amount: bigint };
  /** Set for a successful invokeHostFunction: sha256 of its InvokeHostFunctionSuccessPreImage (return value and events). */
  contractCallHash?: Buffer;
  /** Set for a successful accountMerge: the native balance the merged account handed over. */
  merged?: bigint;
}

export type TxCode =
  | "txSuccess"
  | "txFailed"
  | "txTooEarly"
  | "txTooLate"
  | "txMissingOperation"
  | "txBadSeq"
  | "txBadAuth"
  | "txInsufficientBalance"
  | "txNoAccount"
  | "txInsufficientFee"
  | "txBadAuthExtra"
  | "txInternalError"
  | "txNotSupported"
  | "txBadMinSeqAgeOrGap"
  | "txMalformed";

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const OP_CODE_EXCEPTIONS: Record<string, string> = {
  overSendmax: "op_over_source_max",
  underDestmin: "op_under_dest_min",
  alreadyExist: "op_already_exists",
  nameNotFound: "op_data_name_not_found",
  seqnumTooFar: "op_seq_num_too_far",
  invalidName: "op_data_invalid_name",
  opBadAuth: "op_bad_auth",
  opNoAccount: "op_no_source_account",
  opNotSupported: "op_not_supported",
};

/** Horizon's string for an operation result: "op_success", "op_no_trust", "op_over_source_max"... */
const horizonOpCode = (outcome: OpOutcome): string => OP_CODE_EXCEPTIONS[outcome.code] ?? `op_${snake(outcome.code)}`;

const TX_CODE_EXCEPTIONS: Record<string, string> = {
  txNoAccount: "tx_no_source_account",
  txBadMinSeqAgeOrGap: "tx_bad_minseq_age_or_gap",
};

/** Horizon's string for a transaction result: "tx_success", "tx_bad_seq", "tx_no_source_account"... */
const horizonTxCode = (code: TxCode): string => TX_CODE_EXCEPTIONS[code] ?? `tx${snake(code.slice(2))}`;

// The generated XDR classes are looked up by name (`PaymentResult.paymentNoTrust()`), which the
// SDK's typings cannot express; this is the one place that does it.
type UnionFactory = Record<string, (value?: unknown) => unknown>;
const xdrByName = xdr as unknown as Record<string, UnionFactory & (new (attributes: unknown) => unknown)>;

const int64 = (value: bigint) => new xdr.Int64(value);
const accountId = (address: string) => Keypair.fromPublicKey(address).xdrAccountId();

function claimAtom(fill: Fill): xdr.ClaimAtom {
  return xdr.ClaimAtom.claimAtomTypeOrderBook(
    new xdr.ClaimOfferAtom({
      sellerId: accountId(fill.offer.seller),
      offerId: int64(fill.offer.id),
      assetSold: fill.offer.selling.toXDRObject(),
      amountSold: int64(fill.amountSold),
      assetBought: fill.offer.buying.toXDRObject(),
      amountBought: int64(fill.amountBought),
    }),
  );
}

function operationResult(outcome: OpOutcome): xdr.OperationResult {
  if (outcome.code === "opBadAuth") return xdr.OperationResult.opBadAuth();
  if (outcome.code === "opNoAccount") return xdr.OperationResult.opNoAccount();
  if (outcome.code === "opNotSupported") return xdr.OperationResult.opNotSupported();

  const resultUnion = xdrByName[`${upperFirst(outcome.type)}Result`];
  const arm = `${outcome.type}${upperFirst(outcome.code)}`;
  const makeArm = resultUnion?.[arm];
  if (!makeArm) throw new Error(`no XDR result ${arm} for operation ${outcome.type}`);

  let inner: unknown;
  if (outcome.merged !== undefined) {
    inner = makeArm.call(resultUnion, int64(outcome.merged));
  } else if (outcome.contractCallHash) {
    inner = makeArm.call(resultUnion, outcome.contractCallHash);
  } else if (outcome.balanceId) {
    inner = makeArm.call(resultUnion, xdr.ClaimableBalanceId.fromXDR(outcome.balanceId, "hex"));
  } else if (outcome.pathPayment) {
    const success = outcome.pathPayment;
    const SuccessStruct = xdrByName[`${upperFirst(outcome.type)}ResultSuccess`]!;
    inner = makeArm.call(
      resultUnion,
      new SuccessStruct({
        offers: success.fills.map(claimAtom),
        last: new xdr.SimplePaymentResult({
          destination: accountId(success.destination),
          asset: success.asset.toXDRObject(),
          amount: int64(success.amount),
        }),
      }),
    );
  } else {
    inner = makeArm.call(resultUnion);
  }
  const tr = (xdr.OperationResultTr as unknown as UnionFactory)[outcome.type]!.call(xdr.OperationResultTr, inner);
  return xdr.OperationResult.opInner(tr as xdr.OperationResultTr);
}

export interface TransactionResultInput {
  feeCharged: bigint;
  code: TxCode;
  /** Operation results, for txSuccess and txFailed. */
  operations?: OpOutcome[];
  /** For a fee-bump envelope: `code` and `operations` describe the inner transaction. */
  feeBump?: { innerHash: Buffer };
}

function resultArm<T>(union: unknown, code: TxCode, operations: OpOutcome[] | undefined): T {
  const factory = union as UnionFactory;
  const make = factory[code]!;
  const hasResults = code === "txSuccess" || code === "txFailed";
  return make.call(union, hasResults ? (operations ?? []).map(operationResult) : undefined) as T;
}

/** A real xdr.TransactionResult, as Horizon returns it in `result_xdr`. */
export function buildTransactionResult(input: TransactionResultInput): xdr.TransactionResult {
  let result: xdr.TransactionResultResult;
  if (input.feeBump) {
    // Fee bumps wrap the inner result; the inner feeCharged is always 0 (the outer one pays).
    const inner = new xdr.InnerTransactionResult({
      feeCharged: int64(0n),
      result: resultArm<xdr.InnerTransactionResultResult>(xdr.InnerTransactionResultResult, input.code, input.operations),
      ext: new xdr.InnerTransactionResultExt(0),
    });
    const pair = new xdr.InnerTransactionResultPair({ transactionHash: input.feeBump.innerHash, result: inner });
    result =
      input.code === "txSuccess"
        ? xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair)
        : xdr.TransactionResultResult.txFeeBumpInnerFailed(pair);
  } else {
    result = resultArm<xdr.TransactionResultResult>(xdr.TransactionResultResult, input.code, input.operations);
  }
  return new xdr.TransactionResult({ feeCharged: int64(input.feeCharged), result, ext: new xdr.TransactionResultExt(0) });
}

/** Horizon's `extras.result_codes`; fee bumps report the inner result under inner_transaction. */
export function resultCodes(input: TransactionResultInput): Record<string, unknown> {
  const own: Record<string, unknown> = { transaction: horizonTxCode(input.code) };
  if (input.operations && (input.code === "txSuccess" || input.code === "txFailed")) {
    own.operations = input.operations.map(horizonOpCode);
  }
  if (!input.feeBump) return own;
  return {
    transaction: input.code === "txSuccess" ? "tx_fee_bump_inner_success" : "tx_fee_bump_inner_failed",
    inner_transaction: own,
  };
}
