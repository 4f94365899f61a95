// JSON records in Horizon's shapes and field names, so the SDK (and code written against real
// Horizon) reads them unchanged. `base` is the absolute URL of the Horizon root, for `_links`.
import { type Asset, type Memo, xdr } from "@stellar/stellar-sdk";
import { formatAmount, parseAmount } from "./amounts.ts";
import { type AccountRef, accountRef, assetFields } from "./assets.ts";
import type { StoredLedger, StoredOperation, StoredTransaction } from "./history.ts";
import { type AccountEntry, BASE_FEE, BASE_RESERVE, type ClaimableBalanceEntry, subentryCount } from "./state.ts";

type Json = Record<string, unknown>;

const link = (href: string, templated = false) => (templated ? { href, templated: true } : { href });

/** Horizon's timestamps: RFC 3339 in UTC, whole seconds. */
export const horizonTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The muxed fields Horizon adds next to an account field when the address was an M... address. */
function muxedFields(field: string, ref: AccountRef): Json {
  return ref.muxed ? { [`${field}_muxed`]: ref.muxed, [`${field}_muxed_id`]: ref.muxedId } : {};
}

export function accountRecord(base: string, account: AccountEntry): Json {
  const self = `${base}/accounts/${account.id}`;
  const credit = [...account.trustlines.values()].map((line) => ({
    balance: formatAmount(line.balance),
    limit: formatAmount(line.limit),
    buying_liabilities: "0.0000000",
    selling_liabilities: "0.0000000",
    last_modified_ledger: line.lastModifiedLedger,
    is_authorized: true,
    is_authorized_to_maintain_liabilities: true,
    ...assetFields(line.asset),
  }));
  return {
    _links: {
      self: link(self),
      transactions: link(`${self}/transactions{?cursor,limit,order}`, true),
      operations: link(`${self}/operations{?cursor,limit,order}`, true),
      payments: link(`${self}/payments{?cursor,limit,order}`, true),
      effects: link(`${self}/effects{?cursor,limit,order}`, true),
      offers: link(`${self}/offers{?cursor,limit,order}`, true),
      trades: link(`${self}/trades{?cursor,limit,order}`, true),
      // The SDK's SEP-29 memo check reads `data` through this templated link.
      data: link(`${self}/data/{key}`, true),
    },
    id: account.id,
    account_id: account.id,
    sequence: account.sequence.toString(),
    sequence_ledger: account.sequenceLedger,
    sequence_time: account.sequenceTime.toString(),
    subentry_count: subentryCount(account),
    last_modified_ledger: account.lastModifiedLedger,
    last_modified_time: horizonTime(account.lastModifiedTime),
    thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
    flags: { auth_required: false, auth_revocable: false, auth_immutable: false, auth_clawback_enabled: false },
    // Horizon lists trustlines first and the native balance last.
    balances: [
      ...credit,
      { balance: formatAmount(account.balance), buying_liabilities: "0.0000000", selling_liabilities: "0.0000000", asset_type: "native" },
    ],
    signers: [{ weight: 1, key: account.id, type: "ed25519_public_key" }],
    data: Object.fromEntries([...account.data].map(([key, value]) => [key, value.toString("base64")])),
    num_sponsoring: account.numSponsoring,
    num_sponsored: 0,
    paging_token: account.id,
  };
}

function memoFields(memo: Memo): Json {
  switch (memo.type) {
    case "text": {
      const bytes = Buffer.isBuffer(memo.value) ? memo.value : Buffer.from(String(memo.value), "utf8");
      return { memo_type: "text", memo: bytes.toString("utf8"), memo_bytes: bytes.toString("base64") };
    }
    case "id":
      return { memo_type: "id", memo: String(memo.value) };
    case "hash":
    case "return":
      return { memo_type: memo.type, memo: Buffer.from(memo.value as Buffer).toString("base64") };
    default:
      return { memo_type: "none" };
  }
}

const signaturesOf = (signatures: xdr.DecoratedSignature[]) => signatures.map((s) => s.signature().toString("base64"));

/** A transaction record. Looked up by a fee bump's inner hash, it answers with that hash as id. */
export function transactionRecord(base: string, stored: StoredTransaction, requestedHash?: string): Json {
  const { envelope } = stored;
  const { tx } = envelope;
  const hash = requestedHash && requestedHash === envelope.innerHash ? envelope.innerHash : stored.hash;
  const pagingToken = stored.id.toString();
  const self = `${base}/transactions/${hash}`;
  const record: Json = {
    _links: {
      self: link(self),
      account: link(`${base}/accounts/${envelope.source.account}`),
      ledger: link(`${base}/ledgers/${stored.ledger}`),
      operations: link(`${self}/operations{?cursor,limit,order}`, true),
      effects: link(`${self}/effects{?cursor,limit,order}`, true),
      precedes: link(`${base}/transactions?order=asc&cursor=${pagingToken}`),
      succeeds: link(`${base}/transactions?order=desc&cursor=${pagingToken}`),
      transaction: link(self),
    },
    id: hash,
    paging_token: pagingToken,
    successful: stored.successful,
    hash,
    ledger: stored.ledger,
    created_at: horizonTime(stored.createdAt),
    source_account: envelope.source.account,
    ...(envelope.source.muxed ? { account_muxed: envelope.source.muxed, account_muxed_id: envelope.source.muxedId } : {}),
    source_account_sequence: envelope.sequence.toString(),
    fee_account: envelope.feeSource.account,
    ...muxedFields("fee_account", envelope.feeSource),
    fee_charged: stored.feeCharged.toString(),
    max_fee: envelope.maxFee.toString(),
    operation_count: tx.operations.length,
    envelope_xdr: envelope.envelopeXdr,
    result_xdr: stored.resultXdr,
    ...memoFields(tx.memo),
    signatures: signaturesOf(envelope.feeBump ? envelope.feeBump.signatures : tx.signatures),
  };
  if (tx.timeBounds) {
    record.valid_after = horizonTime(new Date(Number(tx.timeBounds.minTime) * 1000));
    if (tx.timeBounds.maxTime !== "0") record.valid_before = horizonTime(new Date(Number(tx.timeBounds.maxTime) * 1000));
    record.preconditions = { timebounds: { min_time: tx.timeBounds.minTime, max_time: tx.timeBounds.maxTime } };
  }
  if (envelope.feeBump) {
    record.fee_bump_transaction = { hash: stored.hash, signatures: signaturesOf(envelope.feeBump.signatures) };
    record.inner_transaction = { hash: envelope.innerHash, signatures: signaturesOf(tx.signatures), max_fee: tx.fee };
  }
  return record;
}

const assetObject = (asset: Asset) => assetFields(asset);
const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** The SDK decodes amounts to decimal strings; normalize them to Horizon's 7 decimals. */
const amount = (text: string) => formatAmount(parseAmount(text));

/** An operation record with Horizon's type-specific fields; `transaction` embeds the tx (join). */
export function operationRecord(base: string, stored: StoredOperation, embedTransaction = false): Json {
  const { op, source, transaction } = stored;
  const id = stored.id.toString();
  const record: Json = {
    _links: {
      self: link(`${base}/operations/${id}`),
      transaction: link(`${base}/transactions/${transaction.hash}`),
      effects: link(`${base}/operations/${id}/effects`),
      succeeds: link(`${base}/effects?order=desc&cursor=${id}`),
      precedes: link(`${base}/effects?order=asc&cursor=${id}`),
    },
    id,
    paging_token: id,
    transaction_successful: transaction.successful,
    source_account: source.account,
    ...muxedFields("source_account", source),
    type: snake(op.type),
    type_i: (xdr.OperationType as unknown as Record<string, () => xdr.OperationType>)[op.type]!().value,
    created_at: horizonTime(transaction.createdAt),
    transaction_hash: transaction.hash,
  };
  const pathPayment = stored.outcome.pathPayment;
  switch (op.type) {
    case "createAccount":
      Object.assign(record, {
        starting_balance: amount(op.startingBalance),
        funder: source.account,
        ...muxedFields("funder", source),
        account: op.destination,
      });
      break;
    case "payment":
    case "pathPaymentStrictReceive":
    case "pathPaymentStrictSend": {
      const destination = accountRef(op.destination);
      Object.assign(record, { from: source.account, ...muxedFields("from", source), to: destination.account, ...muxedFields("to", destination) });
      if (op.type === "payment") {
        Object.assign(record, assetFields(op.asset), { amount: amount(op.amount) });
      } else if (op.type === "pathPaymentStrictReceive") {
        Object.assign(record, assetFields(op.destAsset), {
          amount: amount(op.destAmount),
          path: op.path.map(assetObject),
          source_amount: formatAmount(pathPayment?.sourceAmount ?? 0n),
          source_max: amount(op.sendMax),
          ...assetFields(op.sendAsset, "source_"),
        });
      } else {
        Object.assign(record, assetFields(op.destAsset), {
          amount: formatAmount(pathPayment?.amount ?? 0n),
          path: op.path.map(assetObject),
          source_amount: amount(op.sendAmount),
          destination_min: amount(op.destMin),
          ...assetFields(op.sendAsset, "source_"),
        });
      }
      break;
    }
    case "changeTrust": {
      const line = op.line as Asset;
      Object.assign(record, assetFields(line), {
        limit: amount(op.limit),
        trustee: line.getIssuer(),
        trustor: source.account,
        ...muxedFields("trustor", source),
      });
      break;
    }
    case "manageData":
      Object.assign(record, { name: op.name, value: op.value ? Buffer.from(op.value).toString("base64") : "" });
      break;
    case "bumpSequence":
      Object.assign(record, { bump_to: op.bumpTo });
      break;
    case "createClaimableBalance":
      Object.assign(record, {
        asset: canonicalAsset(op.asset),
        amount: amount(op.amount),
        sponsor: source.account,
        claimants: op.claimants.map((c) => ({ destination: c.destination, predicate: predicateJson(c.predicate) })),
      });
      break;
    case "claimClaimableBalance":
      Object.assign(record, { balance_id: op.balanceId.toLowerCase(), claimant: source.account, ...muxedFields("claimant", source) });
      break;
    case "accountMerge": {
      const into = accountRef(op.destination);
      Object.assign(record, { account: source.account, ...muxedFields("account", source), into: into.account, ...muxedFields("into", into) });
      break;
    }
    default:
      break;
  }
  if (embedTransaction) record.transaction = transactionRecord(base, transaction);
  return record;
}

/** Horizon's asset string in claimable balance records: "native" or "CODE:ISSUER". */
const canonicalAsset = (asset: Asset) => (asset.isNative() ? "native" : `${asset.getCode()}:${asset.getIssuer()}`);

/** A claim predicate as Horizon renders it. */
function predicateJson(predicate: xdr.ClaimPredicate): Json {
  switch (predicate.switch().name) {
    case "claimPredicateAnd":
      return { and: predicate.andPredicates().map(predicateJson) };
    case "claimPredicateOr":
      return { or: predicate.orPredicates().map(predicateJson) };
    case "claimPredicateNot":
      return { not: predicateJson(predicate.notPredicate()!) };
    case "claimPredicateBeforeAbsoluteTime": {
      const seconds = Number(predicate.absBefore().toString());
      return { abs_before: horizonTime(new Date(Math.min(seconds, 253402300799) * 1000)), abs_before_epoch: predicate.absBefore().toString() };
    }
    case "claimPredicateBeforeRelativeTime":
      return { rel_before: predicate.relBefore().toString() };
    default:
      return { unconditional: true };
  }
}

/** A claimable balance record (GET /claimable_balances/{id}). */
export function claimableBalanceRecord(base: string, balance: ClaimableBalanceEntry): Json {
  return {
    _links: { self: link(`${base}/claimable_balances/${balance.id}`) },
    id: balance.id,
    asset: canonicalAsset(balance.asset),
    amount: formatAmount(balance.amount),
    sponsor: balance.sponsor,
    last_modified_ledger: balance.lastModifiedLedger,
    claimants: balance.claimants.map((c) => ({ destination: c.destination, predicate: predicateJson(c.predicate) })),
    flags: { clawback_enabled: false },
    paging_token: balance.id,
  };
}

export function ledgerRecord(base: string, ledger: StoredLedger): Json {
  const successful = ledger.transactions.filter((tx) => tx.successful);
  const operationCount = successful.reduce((sum, tx) => sum + tx.operations.length, 0);
  const self = `${base}/ledgers/${ledger.sequence}`;
  return {
    _links: {
      self: link(self),
      transactions: link(`${self}/transactions{?cursor,limit,order}`, true),
      operations: link(`${self}/operations{?cursor,limit,order}`, true),
      payments: link(`${self}/payments{?cursor,limit,order}`, true),
      effects: link(`${self}/effects{?cursor,limit,order}`, true),
    },
    id: ledger.hash,
    paging_token: ledger.id.toString(),
    hash: ledger.hash,
    prev_hash: ledger.prevHash,
    sequence: ledger.sequence,
    successful_transaction_count: successful.length,
    failed_transaction_count: ledger.transactions.length - successful.length,
    operation_count: operationCount,
    tx_set_operation_count: ledger.transactions.reduce((sum, tx) => sum + tx.operations.length, 0),
    closed_at: horizonTime(ledger.closedAt),
    total_coins: "105443902087.3472865",
    fee_pool: "0.0000000",
    base_fee_in_stroops: Number(BASE_FEE),
    base_reserve_in_stroops: Number(BASE_RESERVE),
    max_tx_set_size: 1000,
    protocol_version: 22,
  };
}

/** A HAL collection page. */
export function pageRecord(links: { self: string; next: string; prev: string }, records: unknown[]): Json {
  return {
    _links: { self: link(links.self), next: link(links.next), prev: link(links.prev) },
    _embedded: { records },
  };
}

/** Horizon's problem document (RFC 7807). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  extras?: Json;
}

const PROBLEM_BASE = "https://stellar.org/horizon-errors/";

export const problems = {
  notFound: (): Problem => ({
    type: `${PROBLEM_BASE}not_found`,
    title: "Resource Missing",
    status: 404,
    detail:
      "The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.",
  }),
  badRequest: (invalidField: string, reason: string): Problem => ({
    type: `${PROBLEM_BASE}bad_request`,
    title: "Bad Request",
    status: 400,
    detail: "The request you sent was invalid in some way.",
    extras: { invalid_field: invalidField, reason },
  }),
  transactionMalformed: (envelopeXdr: string, reason: string): Problem => ({
    type: `${PROBLEM_BASE}transaction_malformed`,
    title: "Transaction Malformed",
    status: 400,
    detail:
      "Horizon could not decode the transaction envelope in this request. A transaction should be an XDR-encoded `TransactionEnvelope` struct, base64 encoded.",
    extras: { envelope_xdr: envelopeXdr, result_codes: { transaction: "tx_malformed" }, reason },
  }),
  transactionFailed: (extras: Json): Problem => ({
    type: `${PROBLEM_BASE}transaction_failed`,
    title: "Transaction Failed",
    status: 400,
    detail:
      "The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this response contains further details.  Descriptions of each code can be found at: https://developers.stellar.org/docs/data/apis/horizon/api-reference/errors/http-status-codes/horizon-specific/transaction-failed",
    extras,
  }),
  timeout: (hash: string): Problem => ({
    type: `${PROBLEM_BASE}timeout`,
    title: "Timeout",
    status: 504,
    detail:
      "Your request timed out before completing.  Please try your request again. If you are submitting a transaction make sure you are sending exactly the same transaction (with the same sequence number).",
    extras: { hash },
  }),
  methodNotAllowed: (): Problem => ({
    type: `${PROBLEM_BASE}method_not_allowed`,
    title: "Method Not Allowed",
    status: 405,
    detail: "This endpoint does not support the request method you used.",
  }),
  internal: (): Problem => ({
    type: `${PROBLEM_BASE}server_error`,
    title: "Internal Server Error",
    status: 500,
    detail: "An error occurred while processing this request.",
  }),
};
