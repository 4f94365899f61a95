// The built-in simulated Stellar network: an in-memory ledger with a Horizon-compatible HTTP API
// (and friendbot), so the payment service runs end to end on real signed transaction XDR with no
// internet. Mount `fetch` under `basePath`; Horizon is at `${basePath}/horizon`, friendbot at
// `${basePath}/friendbot`, and Stellar RPC (JSON-RPC, CAP-67 events) at `${basePath}/rpc`.
import { createHash } from "node:crypto";
import {
  Account,
  Asset,
  type FeeBumpTransaction,
  Keypair,
  Operation,
  TimeoutInfinite,
  type Transaction,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { INT64_MAX, formatAmount, parseAmount, parsePrice } from "./amounts.ts";
import { type Envelope, applyTransaction, checkTransaction, parseEnvelope, unixSeconds } from "./apply-transaction.ts";
import { AssetContracts, transactionEvents } from "./asset-events.ts";
import {
  type ContractTransfer,
  type ContractTransferInput,
  contractTransferCall,
  contractTransferEnvelope,
  contractTransferEvents,
  parseContractTransfer,
} from "./contract-transfer.ts";
import { assetKey, isAccountId } from "./assets.ts";
import { signEd25519 } from "./ed25519.ts";
import { History, type StoredLedger, type StoredTransaction } from "./history.ts";
import { problems } from "./horizon-records.ts";
import { type HorizonBackend, type Submission, type SubmissionOutcome, handleHorizon, problemResponse } from "./horizon-routes.ts";
import type { Offer } from "./order-book.ts";
import { toid } from "./paging.ts";
import { buildTransactionResult, resultCodes } from "./result-xdr.ts";
import { type RpcBackend, handleRpc } from "./rpc-routes.ts";
import { SseHub } from "./sse.ts";
import { LedgerState, newAccount } from "./state.ts";

export interface SimulatedNetworkOptions {
  /** Networks.TESTNET or Networks.PUBLIC (any passphrase works): hashes and signatures use it. */
  networkPassphrase: string;
  /** URL path prefix the network is mounted under, e.g. "/_sim" ("" for the root). */
  basePath: string;
  /** Ledgers close every N ms once start() is called. Default 1000. */
  ledgerCloseMs?: number;
  clock?: { now(): Date };
  /** How long POST /transactions waits for its ledger before answering 504, as Horizon. Default 30 s. */
  submissionTimeoutMs?: number;
  /** Interval of the comments that keep SSE streams alive. Default 15 s. */
  keepAliveMs?: number;
  /** How many of the latest ledgers the RPC API answers for. Default 120,960 (7 days of 5 s ledgers, stellar-rpc's default). */
  rpcRetentionLedgers?: number;
  /** How many of those getEvents answers for (a node with a shorter event window). Default: all of them. */
  rpcEventRetentionLedgers?: number;
}

/**
 * Test switches for the faults of an RPC node (or of the provider in front of it). The service's
 * handling of each is tested against them; a real node shows them without being asked.
 */
export interface RpcFaults {
  /** answer every call with HTTP 503 and no JSON-RPC body, as a provider's gateway does when its node is down */
  unavailable: boolean;
  /** answer every call with this JSON-RPC error object */
  error: { code: number; message: string } | null;
  /** answer every call this much later */
  delayMs: number;
  /** getEvents answers these events with a topic that is not XDR */
  malformedEvents: (event: { txHash: string; operationIndex: number }) => boolean;
  /** getNetwork answers this passphrase, as a node of another network would (the ledger stays this one) */
  otherNetwork: string | null;
}

const noRpcFaults = (): RpcFaults => ({ unavailable: false, error: null, delayMs: 0, malformedEvents: () => false, otherNetwork: null });

export interface LedgerSummary {
  sequence: number;
  hash: string;
  /** The ledger's close time (whole seconds, as on Stellar). */
  closedAt: Date;
  /** Hashes of the transactions in the ledger, successful and failed, in application order. */
  transactionHashes: string[];
  successfulTransactionCount: number;
  failedTransactionCount: number;
  operationCount: number;
}

export type ResultCodes = { transaction: string; operations?: string[]; inner_transaction?: ResultCodes };

/** What a programmatic submission became: in a ledger (maybe failed), or rejected before it. */
export type SubmitResult =
  | { status: "included"; hash: string; ledger: number; successful: boolean; feeCharged: string; resultXdr: string; resultCodes: ResultCodes }
  | { status: "rejected"; hash: string; resultXdr: string; resultCodes: ResultCodes };

export interface OfferInput {
  selling: Asset;
  buying: Asset;
  /** Units of `buying` per unit of `selling`: "n/d", a decimal string, or {n, d}. */
  price: string | { n: number | bigint; d: number | bigint };
  /** Amount of `selling` offered, a decimal string. */
  amount: string;
  /** The account shown as the offer's owner; a built-in market maker by default. */
  seller?: string;
}

export interface OfferInfo {
  id: string;
  seller: string;
  selling: Asset;
  buying: Asset;
  price: string;
  /** Remaining amount of `selling`. */
  amount: string;
}

interface PendingSubmission {
  envelope: Envelope;
  /** Set for a contract transfer the network records (recordContractTransfer). */
  contractTransfer?: ContractTransfer;
  done: Promise<Exclude<SubmissionOutcome, { status: "timeout" }>>;
  settle: (outcome: Exclude<SubmissionOutcome, { status: "timeout" }>) => void;
}

const ROOT_BALANCE = 100_000_000_000n * 10_000_000n; // 100 billion XLM, below total coins
const ISSUER_BALANCE = 10_000n * 10_000_000n;
const GENESIS_HASH = "0".repeat(64);
const DEFAULT_RPC_RETENTION_LEDGERS = 120_960;

/** The owner of offers added without a seller: a fixed, valid key. */
export const MARKET_MAKER = Keypair.fromRawEd25519Seed(
  createHash("sha256").update("stellar-pay simulated network market maker").digest(),
).publicKey();

const normalizeBasePath = (path: string) => {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
};

export class SimulatedNetwork {
  readonly networkPassphrase: string;
  readonly basePath: string;
  readonly ledgerCloseMs: number;
  /** The network's root account (Keypair.master(passphrase), as on Stellar); it funds friendbot accounts. */
  readonly rootKeypair: Keypair;

  private readonly clock: { now(): Date };
  private readonly state = new LedgerState();
  private readonly history = new History();
  private readonly sse: SseHub;
  private readonly backend: HorizonBackend;
  private readonly rpcBackend: RpcBackend;
  private readonly assetContracts: AssetContracts;
  private timer: ReturnType<typeof setInterval> | undefined;
  private queue: PendingSubmission[] = [];
  private readonly pendingByHash = new Map<string, PendingSubmission>();
  /** Last queued sequence number per account, so queued transactions can follow each other. */
  private readonly pendingSequence = new Map<string, bigint>();
  private readonly listeners = new Set<(ledger: LedgerSummary) => void>();
  /** Test switches: faults of the RPC node (clearRpcFaults() ends them). */
  readonly rpcFaults: RpcFaults = noRpcFaults();
  /**
   * Test switch: stellar-core's EMIT_CLASSIC_EVENTS. Off, the transactions applied from then on
   * record no events for their classic operations (nor their fee), as on a node configured without it.
   */
  emitClassicEvents = true;

  constructor(options: SimulatedNetworkOptions) {
    this.networkPassphrase = options.networkPassphrase;
    this.basePath = normalizeBasePath(options.basePath);
    this.ledgerCloseMs = options.ledgerCloseMs ?? 1000;
    this.clock = options.clock ?? { now: () => new Date() };
    this.sse = new SseHub(options.keepAliveMs ?? 15_000);
    this.rootKeypair = Keypair.master(options.networkPassphrase);

    // Genesis: ledger 1 holds the root account.
    const closedAt = this.nextCloseTime();
    this.state.accounts.set(this.rootKeypair.publicKey(), newAccount(this.rootKeypair.publicKey(), ROOT_BALANCE, 1, closedAt));
    this.history.addLedger({ sequence: 1, hash: ledgerHash(GENESIS_HASH, 1, closedAt, []), prevHash: GENESIS_HASH, closedAt, id: toid(1, 0, 0), transactions: [] });

    // The HTTP layer sees the network through this narrow interface only.
    const submissionTimeoutMs = options.submissionTimeoutMs ?? 30_000;
    this.backend = {
      networkPassphrase: this.networkPassphrase,
      state: this.state,
      history: this.history,
      sse: this.sse,
      submissionTimeoutMs,
      submitEnvelope: (envelope) => this.submitEnvelope(envelope),
      friendbotFund: (address, startingBalance) => this.friendbotFund(address, startingBalance),
    };
    this.assetContracts = new AssetContracts(this.networkPassphrase);
    this.rpcBackend = {
      networkPassphrase: this.networkPassphrase,
      state: this.state,
      history: this.history,
      retentionLedgers: options.rpcRetentionLedgers ?? DEFAULT_RPC_RETENTION_LEDGERS,
      eventRetentionLedgers: options.rpcEventRetentionLedgers ?? options.rpcRetentionLedgers ?? DEFAULT_RPC_RETENTION_LEDGERS,
      malformsEvent: (event) => this.rpcFaults.malformedEvents(event),
      announcedPassphrase: () => this.rpcFaults.otherNetwork ?? this.networkPassphrase,
      submitEnvelope: (envelope) => this.submitEnvelope(envelope),
    };
  }

  // -------------------------------------------------------------------------------------------
  // HTTP

  /**
   * Web-standard handler for every path under basePath; 404 problem JSON for anything else.
   * The Date header tells the network's (possibly injected) time, as the SDK's fetchTimebounds()
   * reads server time from it: time bounds built that way match this network's ledger clock.
   */
  async fetch(request: Request): Promise<Response> {
    const response = await this.route(request);
    try {
      response.headers.set("date", this.clock.now().toUTCString());
    } catch {
      // immutable headers: keep the server's own Date
    }
    return response;
  }

  /** Test hook: the RPC node's windows from now on (getEvents' may be shorter than the transactions'). */
  setRpcRetention(windows: { ledgers: number; eventLedgers?: number }) {
    this.rpcBackend.retentionLedgers = windows.ledgers;
    this.rpcBackend.eventRetentionLedgers = windows.eventLedgers ?? windows.ledgers;
  }

  clearRpcFaults() {
    Object.assign(this.rpcFaults, noRpcFaults());
  }

  private async answerRpc(request: Request, friendbotUrl: string): Promise<Response> {
    const faults = this.rpcFaults;
    if (faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
    if (faults.unavailable) return new Response("no healthy upstream", { status: 503, headers: { "content-type": "text/plain" } });
    if (faults.error) {
      const call = (await request.json().catch(() => null)) as { id?: unknown } | null;
      return Response.json({ jsonrpc: "2.0", id: call?.id ?? null, error: faults.error });
    }
    return handleRpc(this.rpcBackend, request, friendbotUrl);
  }

  private async route(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      const path = url.pathname;
      if (path !== this.basePath && !path.startsWith(`${this.basePath}/`)) return problemResponse(problems.notFound());
      const rest = path.slice(this.basePath.length);
      const mount = `${url.origin}${this.basePath}`;
      const friendbotUrl = `${mount}/friendbot`;
      if (rest === "/friendbot" || rest === "/friendbot/") {
        return await handleHorizon(this.backend, request, url, `${mount}/horizon`, "/friendbot", friendbotUrl);
      }
      if (rest === "/rpc" || rest === "/rpc/") return await this.answerRpc(request, friendbotUrl);
      if (rest === "/horizon" || rest.startsWith("/horizon/")) {
        return await handleHorizon(this.backend, request, url, `${mount}/horizon`, rest.slice("/horizon".length), friendbotUrl);
      }
      return problemResponse(problems.notFound());
    } catch (error) {
      if (error instanceof URIError) return problemResponse(problems.notFound());
      return problemResponse(problems.internal());
    }
  }

  // -------------------------------------------------------------------------------------------
  // Ledger clock

  /** Closes a ledger every ledgerCloseMs. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.closeLedgerNow();
      } catch (error) {
        // The clock must keep ticking; a failure here is a bug in the simulator, not in the caller.
        console.error("simulated network: closing a ledger failed", error);
      }
    }, this.ledgerCloseMs);
    this.timer.unref?.();
  }

  /** Stops closing ledgers and ends every open SSE stream. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.sse.closeAll();
  }

  get started(): boolean {
    return this.timer !== undefined;
  }

  /** Closes one ledger now with every queued transaction; pending submissions resolve. */
  async closeLedger(): Promise<LedgerSummary> {
    return this.closeLedgerNow();
  }

  /** Called after every ledger close, synchronously; returns the unsubscribe function. */
  onLedgerClosed(listener: (ledger: LedgerSummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get latestLedger(): LedgerSummary {
    return summarize(this.history.latestLedger);
  }

  /** Transactions accepted and waiting for the next ledger. */
  get pendingTransactionCount(): number {
    return this.queue.length;
  }

  /** Number of SSE streams currently open. */
  get openStreams(): number {
    return this.sse.size;
  }

  // -------------------------------------------------------------------------------------------
  // Test and demo set-up

  /**
   * Friendbot: creates and funds the account with a real createAccount from the root account,
   * resolving once it is in a ledger. When the network is not started it closes that ledger now.
   */
  async fund(address: string, xlm = "10000"): Promise<{ hash: string; ledger: number }> {
    if (!isAccountId(address)) throw new Error(`not an account id: ${address}`);
    const submission = this.friendbotFund(address, parseAmount(xlm));
    if (submission.status === "exists") throw new Error(`account ${address} already exists`);
    if (submission.status === "rejected") throw new Error(`funding rejected: ${JSON.stringify(resultCodes(submission.result))}`);
    if (!this.timer) this.closeLedgerNow();
    const outcome = await submission.done;
    if (outcome.status !== "included" || !outcome.transaction.successful) {
      const result = outcome.status === "included" ? outcome.transaction.result : outcome.result;
      throw new Error(`funding failed: ${JSON.stringify(resultCodes(result))}`);
    }
    return { hash: outcome.transaction.hash, ledger: outcome.transaction.ledger };
  }

  /**
   * Declares a credit asset. Its issuer account is created directly in the ledger (with 10,000 XLM)
   * if it does not exist, so the issuer can then sign payments that issue the asset.
   */
  createAsset(code: string, issuer: string | Keypair): Asset {
    const issuerId = typeof issuer === "string" ? issuer : issuer.publicKey();
    const asset = new Asset(code, issuerId);
    if (!this.state.accounts.has(issuerId)) {
      const latest = this.history.latestLedger;
      this.state.accounts.set(issuerId, newAccount(issuerId, ISSUER_BALANCE, latest.sequence, latest.closedAt));
    }
    return asset;
  }

  /**
   * Sets a trustline directly in the ledger (no transaction): creates it if missing (limit defaults to
   * the maximum) and sets its balance and limit when given. The account and the issuer must exist.
   */
  setTrustline(accountId: string, asset: Asset, options: { balance?: string; limit?: string } = {}): void {
    const account = this.state.accounts.get(accountId);
    if (!account) throw new Error(`account ${accountId} does not exist`);
    if (asset.isNative()) throw new Error("XLM needs no trustline");
    if (asset.getIssuer() === accountId) throw new Error("an issuer cannot trust its own asset");
    const key = assetKey(asset);
    const line = account.trustlines.get(key) ?? { asset, balance: 0n, limit: INT64_MAX, lastModifiedLedger: 0 };
    if (options.limit !== undefined) line.limit = parseAmount(options.limit);
    if (options.balance !== undefined) line.balance = parseAmount(options.balance);
    if (line.balance > line.limit) throw new Error("balance above the trustline limit");
    const latest = this.history.latestLedger;
    line.lastModifiedLedger = latest.sequence;
    account.trustlines.set(key, line);
    account.lastModifiedLedger = latest.sequence;
    account.lastModifiedTime = latest.closedAt;
  }

  /** The account's balance of `asset` (XLM by default), or undefined without account or trustline. */
  balance(accountId: string, asset: Asset = Asset.native()): string | undefined {
    const account = this.state.accounts.get(accountId);
    if (!account) return undefined;
    if (asset.isNative()) return formatAmount(account.balance);
    const line = account.trustlines.get(assetKey(asset));
    return line ? formatAmount(line.balance) : undefined;
  }

  /** The account's current sequence number, or undefined if it does not exist. */
  sequence(accountId: string): string | undefined {
    return this.state.accounts.get(accountId)?.sequence.toString();
  }

  /** Adds liquidity to the order book used by path finding and path payments. */
  addOffer(input: OfferInput): OfferInfo {
    if (input.selling.equals(input.buying)) throw new Error("an offer must exchange two different assets");
    const amount = parseAmount(input.amount);
    if (amount <= 0n) throw new Error("offer amount must be positive");
    const offer = this.state.book.add({
      seller: input.seller ?? MARKET_MAKER,
      selling: input.selling,
      buying: input.buying,
      price: parsePrice(input.price),
      amount,
    });
    return offerInfo(offer);
  }

  removeOffer(id: string): boolean {
    return /^\d+$/.test(id) && this.state.book.remove(BigInt(id));
  }

  offers(): OfferInfo[] {
    return this.state.book.all().map(offerInfo);
  }

  /**
   * Records a payment from a contract account (C...) to an account, as a smart or passkey wallet's
   * payment appears on Stellar: a transaction calling the asset contract's `transfer`, with its
   * CAP-67 `transfer` event (from the contract) on the RPC API. It runs NO contract code (the
   * simulator has no Soroban): the destination is credited, the contract's balance is not modelled,
   * and the call traps (a FAILED transaction) when the destination cannot hold the asset. Resolves
   * once its ledger closed (closing one now when the network is not started).
   */
  async recordContractTransfer(input: ContractTransferInput): Promise<{ hash: string; ledger: number; successful: boolean }> {
    const transfer = parseContractTransfer(input);
    const rootId = this.rootKeypair.publicKey();
    const rootSequence = this.pendingSequence.get(rootId) ?? this.state.accounts.get(rootId)!.sequence;
    const envelope = contractTransferEnvelope(transfer, this.rootKeypair, rootSequence, this.networkPassphrase);
    const submission = this.enqueue(envelope, transfer);
    if (!this.timer) this.closeLedgerNow();
    const outcome = await submission.done;
    if (outcome.status !== "included") throw new Error(`contract transfer not recorded: ${JSON.stringify(resultCodes(outcome.result))}`);
    return { hash: outcome.transaction.hash, ledger: outcome.transaction.ledger, successful: outcome.transaction.successful };
  }

  /**
   * Submits a transaction without HTTP (envelope XDR or an SDK transaction, re-read with this
   * network's passphrase). Resolves when its ledger closes, or at once if it is rejected.
   */
  async submitTransaction(transaction: Transaction | FeeBumpTransaction | string): Promise<SubmitResult> {
    const xdr = typeof transaction === "string" ? transaction : transaction.toEnvelope().toXDR("base64");
    const envelope = parseEnvelope(xdr, this.networkPassphrase);
    const submission = this.submitEnvelope(envelope);
    const outcome = submission.status === "rejected" ? submission : await submission.done;
    if (outcome.status === "rejected") {
      return {
        status: "rejected",
        hash: envelope.hash,
        resultXdr: buildTransactionResult(outcome.result).toXDR("base64"),
        resultCodes: resultCodes(outcome.result) as ResultCodes,
      };
    }
    const tx = outcome.transaction;
    return {
      status: "included",
      hash: tx.hash,
      ledger: tx.ledger,
      successful: tx.successful,
      feeCharged: tx.feeCharged.toString(),
      resultXdr: tx.resultXdr,
      resultCodes: resultCodes(tx.result) as ResultCodes,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Internals

  /** Validity check now (as stellar-core does on submission); if valid, queue for the next ledger. */
  private submitEnvelope(envelope: Envelope): Submission {
    const pending = this.pendingByHash.get(envelope.hash);
    if (pending) return { status: "pending", hash: envelope.hash, duplicate: true, done: pending.done };

    const rejection = checkTransaction(envelope, {
      account: (id) => this.state.accounts.get(id),
      sequenceOf: (id) => this.pendingSequence.get(id) ?? this.state.accounts.get(id)?.sequence,
      ledger: this.history.latestLedger.sequence + 1,
      closeTime: unixSeconds(this.nextCloseTime()),
    });
    if (rejection) return { status: "rejected", envelope, result: rejection };

    return { status: "pending", hash: envelope.hash, duplicate: false, done: this.enqueue(envelope).done };
  }

  /** Queues a checked envelope for the next ledger. */
  private enqueue(envelope: Envelope, contractTransfer?: ContractTransfer): PendingSubmission {
    let settle!: PendingSubmission["settle"];
    const done = new Promise<Exclude<SubmissionOutcome, { status: "timeout" }>>((resolve) => {
      settle = resolve;
    });
    const submission: PendingSubmission = { envelope, contractTransfer, done, settle };
    this.queue.push(submission);
    this.pendingByHash.set(envelope.hash, submission);
    this.pendingSequence.set(envelope.source.account, envelope.sequence);
    return submission;
  }

  private friendbotFund(address: string, startingBalance: bigint): Submission | { status: "exists" } {
    if (this.state.accounts.has(address)) return { status: "exists" };
    const rootId = this.rootKeypair.publicKey();
    const sequence = this.pendingSequence.get(rootId) ?? this.state.accounts.get(rootId)!.sequence;
    const tx = new TransactionBuilder(new Account(rootId, sequence.toString()), { fee: "100", networkPassphrase: this.networkPassphrase })
      .addOperation(Operation.createAccount({ destination: address, startingBalance: formatAmount(startingBalance) }))
      .setTimeout(TimeoutInfinite)
      .build();
    tx.addSignature(this.rootKeypair.publicKey(), signEd25519(this.rootKeypair, tx.hash()).toString("base64"));
    return this.submitEnvelope(parseEnvelope(tx.toEnvelope().toXDR("base64"), this.networkPassphrase));
  }

  /** Ledgers close on whole seconds and never go back in time. */
  private nextCloseTime(): Date {
    const now = Math.floor(this.clock.now().getTime() / 1000) * 1000;
    const previous = this.history.ledgers.length > 0 ? this.history.latestLedger.closedAt.getTime() : 0;
    return new Date(Math.max(now, previous));
  }

  private closeLedgerNow(): LedgerSummary {
    const previous = this.history.latestLedger;
    const sequence = previous.sequence + 1;
    const closedAt = this.nextCloseTime();
    const batch = this.queue;
    this.queue = [];
    this.pendingByHash.clear();
    this.pendingSequence.clear();

    const included: StoredTransaction[] = [];
    const answers: (() => void)[] = [];
    for (const submission of batch) {
      let applied: ReturnType<typeof applyTransaction>;
      try {
        const transfer = submission.contractTransfer;
        applied = applyTransaction(submission.envelope, this.state, sequence, closedAt, transfer && contractTransferCall(transfer, this.assetContracts));
      } catch {
        applied = { included: false, result: { feeCharged: 0n, code: "txInternalError" } };
      }
      if (!applied.included) {
        // Became invalid while queued (e.g. an earlier transaction used the sequence number).
        answers.push(() => submission.settle({ status: "rejected", envelope: submission.envelope, result: applied.result }));
        continue;
      }
      const stored: StoredTransaction = {
        id: toid(sequence, included.length + 1, 0),
        hash: submission.envelope.hash,
        envelope: submission.envelope,
        ledger: sequence,
        createdAt: closedAt,
        successful: applied.successful,
        feeCharged: applied.feeCharged,
        result: applied.result,
        resultXdr: buildTransactionResult(applied.result).toXDR("base64"),
        operations: [],
        events: submission.contractTransfer
          ? contractTransferEvents(submission.contractTransfer, submission.envelope, applied, this.assetContracts)
          : this.emitClassicEvents
            ? transactionEvents(submission.envelope, applied, this.assetContracts)
            : { fee: [], operations: submission.envelope.tx.operations.map(() => []) },
      };
      stored.operations = History.operationsOf(stored, applied.outcomes);
      this.history.addTransaction(stored);
      included.push(stored);
      answers.push(() => submission.settle({ status: "included", transaction: stored }));
    }

    const ledger: StoredLedger = {
      sequence,
      hash: ledgerHash(previous.hash, sequence, closedAt, included.map((tx) => tx.hash)),
      prevHash: previous.hash,
      closedAt,
      id: toid(sequence, 0, 0),
      transactions: included,
    };
    this.history.addLedger(ledger);

    // Answer submitters and streams only once the ledger is in history, as Horizon after ingestion.
    for (const answer of answers) answer();
    this.sse.pump();
    const summary = summarize(ledger);
    for (const listener of this.listeners) {
      try {
        listener(summary);
      } catch {
        // a listener's failure must not stop the ledger clock
      }
    }
    return summary;
  }
}

function ledgerHash(prevHash: string, sequence: number, closedAt: Date, txHashes: string[]): string {
  return createHash("sha256").update(`${prevHash}:${sequence}:${closedAt.getTime()}:${txHashes.join(",")}`).digest("hex");
}

function summarize(ledger: StoredLedger): LedgerSummary {
  const successful = ledger.transactions.filter((tx) => tx.successful);
  return {
    sequence: ledger.sequence,
    hash: ledger.hash,
    closedAt: ledger.closedAt,
    transactionHashes: ledger.transactions.map((tx) => tx.hash),
    successfulTransactionCount: successful.length,
    failedTransactionCount: ledger.transactions.length - successful.length,
    operationCount: successful.reduce((sum, tx) => sum + tx.operations.length, 0),
  };
}

function offerInfo(offer: Offer): OfferInfo {
  return {
    id: offer.id.toString(),
    seller: offer.seller,
    selling: offer.selling,
    buying: offer.buying,
    price: `${offer.price.n}/${offer.price.d}`,
    amount: formatAmount(offer.amount),
  };
}
