// The one way the service reaches a Stellar network: Horizon (horizon-source.ts) or Stellar RPC
// (rpc-source.ts), chosen per network (ledger.ts); the built-in simulated network speaks both.
import type { Asset } from "../shared/assets.ts";
import type { SimulatedNetwork } from "./simulated/index.ts";

/** One incoming or outgoing payment operation touching an account, as the ledger recorded it. */
export interface LedgerPaymentRecord {
  /** the operation id: unique per network, the key that makes each operation count once */
  operationId: string;
  /** where a stream resumes after this record (exclusive) */
  pagingToken: string;
  txHash: string;
  transactionSuccessful: boolean;
  /**
   * "create_claimable_balance": money set aside for `to`, its one claimant (a refund to an account
   * without a trustline); "other": an operation that moves no payment to the account (account
   * creation, merge, ...)
   */
  kind: "payment" | "path_payment_strict_receive" | "path_payment_strict_send" | "create_claimable_balance" | "other";
  /** the paying account (G...) */
  from: string;
  /** the receiving account (G...), muxed or not */
  to: string;
  /** the muxed id when paid to an M... address */
  toMuxedId: string | null;
  asset: Asset;
  /** stroops of `asset` received */
  amount: bigint;
  /** what the payer spent, for path payments */
  sourceAsset: Asset | null;
  memoType: string | null;
  memo: string | null;
  ledgerCreatedAt: Date;
}

export interface LedgerTransaction {
  hash: string;
  successful: boolean;
  ledger: number;
  envelopeXdr: string;
  memoType: string;
  memo: string | null;
  createdAt: Date;
}

export type SubmitResult =
  | { successful: true; hash: string; ledger: number }
  /** refused at submission or failed in its ledger: stellar-core's result codes */
  | { successful: false; hash: string; resultCodes: { transaction: string; operations: string[] } };

export interface PaymentPath {
  sourceAsset: Asset;
  /** stroops of sourceAsset the path needs now */
  sourceAmount: bigint;
  /** intermediate assets, in order */
  path: Asset[];
}

export interface LedgerAccount {
  id: string;
  sequence: string;
  balances: { asset: Asset; balance: bigint }[];
  /** SEP-29: its data entry `config.memo_required` is "1" (exchanges): it must not be paid without a memo */
  memoRequired: boolean;
}

/** What a network's stream hands over at a time: the wanted records among what arrived, and where it got to. */
export interface PaymentBatch {
  /** the payment operations to a wanted account, in ledger order */
  records: LedgerPaymentRecord[];
  /** the payment operations from a wanted account (its refunds going out), in ledger order */
  outgoing: LedgerPaymentRecord[];
  /** where the stream resumes after this batch (exclusive): past every operation that arrived, wanted or not */
  cursor: string;
  /** the ledger of the last operation that arrived */
  ledger: number;
}

export interface PaymentStreamHandlers {
  /**
   * Which accounts' payments the next batch must include. Called once per batch, after its
   * operations arrived and before they are filtered, so that an account watched since (a payment
   * created a moment before it was paid) is included: the others are skipped without being read
   * further (no transaction fetched, nothing written but the cursor).
   */
  wantedAccounts(): Promise<(account: string) => boolean>;
  /**
   * Called in ledger order with what arrived since the previous call (one operation, or many when a
   * busy ledger closes); the next call waits until the returned promise settles.
   */
  onPayments(batch: PaymentBatch): Promise<void>;
  /** the connection failed or a batch could not be processed; the stream is closed */
  onError(error: unknown): void;
}

/** A fault of configuration that retrying cannot mend (a node of another network): the network's stream stops with it. */
export class LedgerSourceFatalError extends Error {
  readonly fatal = true;
}

export const isFatal = (error: unknown): error is LedgerSourceFatalError => (error as { fatal?: unknown } | null)?.fatal === true;

/** The fatal fault behind `error`: itself, or the cause of the UNAVAILABLE a caller was told (unreachable-network.ts). */
export function fatalFaultOf(error: unknown): LedgerSourceFatalError | null {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isFatal(e)) return e;
  }
  return null;
}

export interface ClaimableBalanceStreamHandlers {
  /** the claimable balances created since the previous call, in ledger order; the next call waits for the returned promise */
  onRecords(records: LedgerPaymentRecord[]): Promise<void>;
  /** the connection failed or records could not be processed; the stream is closed */
  onError(error: unknown): void;
}

export interface LedgerSource {
  /** which API reaches the network, for log lines, the start line and /ready */
  readonly api: "Horizon" | "Stellar RPC";
  readonly networkPassphrase: string;
  /** where the network is reached, for log lines */
  readonly url: string;
  /**
   * Every payment operation of the network after `cursor` (exclusive), then new ones live: one
   * stream watches all the network's wallets (Horizon's ledger-wide /payments; on Stellar RPC,
   * getEvents with the payments' transfer events).
   */
  streamPayments(cursor: string, handlers: PaymentStreamHandlers): { close(): void };
  /**
   * The claimable balances for one claimant that `account` creates after `cursor` (exclusive), then
   * new ones live. Horizon's payment streams leave claimable balances out (its /payments holds only
   * account creations, payments, path payments and merges), so the refunds paid with one are
   * followed on their wallet's own operations (Horizon's /accounts/{id}/operations). On Stellar RPC
   * the network's stream has them already (a transfer to the balance's B... address): nothing here.
   */
  streamClaimableBalancesCreatedBy(account: string, cursor: string, handlers: ClaimableBalanceStreamHandlers): { close(): void };
  /** A cursor from which the stream includes every payment made at or after `time`, or "0". */
  cursorAt(time: Date): Promise<string>;
  /** Whether cursor `a` lies before cursor `b` on the network. */
  cursorPrecedes(a: string, b: string): boolean;
  /** The newest ledger the network has closed (Horizon's history_latest_ledger, RPC's getLatestLedger), for the lag on /metrics. */
  latestLedger(): Promise<number>;
  getTransaction(hash: string): Promise<LedgerTransaction | null>;
  submitTransaction(envelopeXdr: string): Promise<SubmitResult>;
  findStrictReceivePaths(input: { sourceAssets: Asset[]; destinationAsset: Asset; destinationAmount: bigint }): Promise<PaymentPath[]>;
  /**
   * null when the account does not exist on the ledger. Its balances hold XLM and at least the
   * trustlines of `options.assets` (Stellar RPC reads a trustline by its asset; Horizon lists all).
   */
  loadAccount(address: string, options?: { assets?: Asset[] }): Promise<LedgerAccount | null>;
  /** whether quotes in assets other than the settlement asset can be had (RPC alone finds no paths) */
  readonly findsPaths: boolean;
  /** Funds a new account with test lumens (friendbot); only test networks have one. */
  fundTestAccount?(address: string): Promise<void>;
}

/**
 * The networks as domain code reaches them (a payment's network by its passphrase); the Ledger of
 * ledger.ts is this plus the workers, which domain code must not know of.
 */
export interface LedgerNetworks {
  /** The source for a payment's network (its networkPassphrase). */
  sourceFor(networkPassphrase: string): LedgerSource;
  /** The simulated network of a passphrase (LEDGER=simulated only), for tests and the demo. */
  simulatedNetwork(networkPassphrase: string): SimulatedNetwork | null;
}
