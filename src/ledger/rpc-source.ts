// LedgerSource over Stellar RPC (JSON-RPC 2.0) with @stellar/stellar-sdk's rpc.Server, for
// operators whose provider offers RPC and no Horizon. The payment stream polls getEvents for the
// CAP-67 asset events (rpc-events.ts); verification and submission are getTransaction and
// sendTransaction; accounts and trustlines are getLedgerEntries. RPC has no path finding: quotes in
// other assets come from Horizon when a Horizon URL is configured too, and otherwise there are none,
// so the checkout offers only the settlement asset.
import { Address, Asset as SdkAsset, StrKey, TransactionBuilder, rpc, xdr } from "@stellar/stellar-sdk";
import { type Asset, XLM, isNative } from "../shared/assets.ts";
import type { Logger } from "../shared/logger.ts";
import { HorizonSource } from "./horizon-source.ts";
import {
  type ClaimableBalanceStreamHandlers,
  type LedgerAccount,
  type LedgerSource,
  LedgerSourceFatalError,
  isFatal,
  type LedgerTransaction,
  type PaymentPath,
  type PaymentStreamHandlers,
  type SubmitResult,
} from "./ledger-source.ts";
import { displayedUrl } from "./network-apis.ts";
import { cursorBeforeLedger, isEventId, memoOf } from "./rpc-events.ts";
import { streamAssetEvents } from "./rpc-stream.ts";

/** SEP-29's account data entry: "1" when the account must be paid with a memo. */
const MEMO_REQUIRED_KEY = "config.memo_required";
/** A submitted transaction not final after this long is reported as not answered (its fate is read later). */
const SUBMIT_DEADLINE_MS = 60_000;

export interface RpcSourceOptions {
  url: string;
  networkPassphrase: string;
  logger: Logger;
  /** Horizon, for path payment quotes only; none: only assets needing no path are offered */
  horizonUrl?: string | null;
  /** friendbot's URL, on test networks only */
  friendbotUrl?: string;
  /** how often getEvents is asked for new events once the stream has caught up */
  pollMs?: number;
  /** an RPC call unanswered this long has failed (a hung node must not stall the stream); default 15 s */
  requestTimeoutMs?: number;
}

type Raw = Record<string, any>;


/** stellar-core's result code as Horizon names it: txBadSeq -> tx_bad_seq. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A transaction's result codes, Horizon's way (tx_failed; op_underfunded, ...), from its XDR result. */
export function resultCodesOf(result: xdr.TransactionResult): { transaction: string; operations: string[] } {
  let outcome = result.result();
  // A fee bump's inner transaction's codes are what went wrong.
  if (outcome.switch().name === "txFeeBumpInnerFailed" || outcome.switch().name === "txFeeBumpInnerSuccess") {
    outcome = outcome.innerResultPair().result().result() as unknown as typeof outcome;
  }
  const name = outcome.switch().name;
  const results: xdr.OperationResult[] = name === "txFailed" || name === "txSuccess" ? outcome.results() : [];
  const operations = results.map((op) => {
    if (op.switch().name !== "opInner") return op.switch().name === "opNoAccount" ? "op_no_source_account" : snake(op.switch().name);
    const tr = op.tr();
    const kind = tr.switch().name;
    const inner = (tr.value() as unknown as { switch(): { name: string } }).switch().name;
    return `op${snake(inner.startsWith(kind) ? inner.slice(kind.length) : inner)}`;
  });
  return { transaction: snake(name), operations };
}

export class RpcSource implements LedgerSource {
  readonly api = "Stellar RPC" as const;
  readonly networkPassphrase: string;
  readonly url: string;
  readonly server: rpc.Server;
  private readonly horizon: HorizonSource | null;
  private networkChecked: Promise<void> | null = null;

  constructor(private readonly options: RpcSourceOptions) {
    this.networkPassphrase = options.networkPassphrase;
    this.url = displayedUrl(options.url);
    this.server = new rpc.Server(options.url, { allowHttp: options.url.startsWith("http:") });
    // rpc.Server takes no timeout option: its HTTP client (axios) does.
    this.server.httpClient.defaults.timeout = options.requestTimeoutMs ?? 15_000;
    this.horizon = options.horizonUrl ? new HorizonSource({ url: options.horizonUrl, networkPassphrase: options.networkPassphrase }) : null;
  }

  /** Whether checkouts can be quoted in assets that need a path (a Horizon URL is configured as well). */
  get findsPaths(): boolean {
    return this.horizon !== null;
  }

  /**
   * The node serves this network (getNetwork's passphrase), checked once: a node of another network
   * would show its payments as ours. Its failure to answer is retried; a wrong passphrase is fatal.
   */
  checkNetwork(): Promise<void> {
    this.networkChecked ??= (async () => {
      const { passphrase } = await this.server.getNetwork();
      if (passphrase !== this.networkPassphrase) {
        throw new LedgerSourceFatalError(
          `Stellar RPC ${this.url} serves the network "${passphrase}", not "${this.networkPassphrase}": this network is stopped; set its RPC URL to a node of that network`,
        );
      }
    })().catch((error: unknown) => {
      if (!isFatal(error)) this.networkChecked = null;
      throw error;
    });
    return this.networkChecked;
  }

  /**
   * Nothing to follow apart: on RPC the network's stream carries claimable balances (CAP-67's
   * transfer from the wallet to the balance's B... address), and hands one a watched wallet created
   * over as an outgoing create_claimable_balance record, its claimant read from the transaction.
   */
  streamClaimableBalancesCreatedBy(_account: string, _cursor: string, _handlers: ClaimableBalanceStreamHandlers) {
    return { close: () => {} };
  }

  streamPayments(cursor: string, handlers: PaymentStreamHandlers) {
    return streamAssetEvents(this, cursor, handlers, { logger: this.options.logger, pollMs: this.options.pollMs ?? 1000 });
  }

  async cursorAt(time: Date): Promise<string> {
    await this.checkNetwork();
    const latest = (await this.server._getLatestLedger()) as unknown as Raw;
    const latestSequence = Number(latest.sequence);
    // The retention window's ends with their close times: the ledger at `time` lies between, at the
    // pace the network closed ledgers (a few seconds each on the real networks).
    const window = (await this.server._getEvents({ filters: [], startLedger: latestSequence, limit: 1 })) as unknown as Raw;
    const oldest = Number(window.oldestLedger ?? latestSequence);
    const oldestTime = Number(window.oldestLedgerCloseTime ?? 0) * 1000;
    const latestTime = Number(window.latestLedgerCloseTime ?? latest.closeTime ?? 0) * 1000;
    if (time.getTime() >= latestTime) return cursorBeforeLedger(latestSequence);
    if (time.getTime() <= oldestTime || latestTime <= oldestTime) return "0";
    const perLedger = (latestTime - oldestTime) / Math.max(1, latestSequence - oldest);
    // Rounded back one more ledger: a ledger closing a bit slower than average is not skipped.
    const ledger = Math.max(oldest, latestSequence - Math.ceil((latestTime - time.getTime()) / perLedger) - 1);
    return cursorBeforeLedger(ledger);
  }

  cursorPrecedes(a: string, b: string): boolean {
    const order = (c: string) => (c === "0" ? "" : isEventId(c) ? c : null);
    const [x, y] = [order(a), order(b)];
    return x !== null && y !== null && x < y;
  }

  async latestLedger(): Promise<number> {
    return Number(((await this.server._getLatestLedger()) as unknown as Raw).sequence);
  }

  async getTransaction(hash: string): Promise<LedgerTransaction | null> {
    await this.checkNetwork();
    const raw = (await this.server._getTransaction(hash)) as unknown as Raw;
    if (raw.status === rpc.Api.GetTransactionStatus.NOT_FOUND) return null;
    const envelope = xdr.TransactionEnvelope.fromXDR(raw.envelopeXdr, "base64");
    return {
      hash,
      successful: raw.status === rpc.Api.GetTransactionStatus.SUCCESS,
      ledger: Number(raw.ledger),
      envelopeXdr: raw.envelopeXdr,
      ...memoOf(envelope, this.networkPassphrase),
      createdAt: new Date(Number(raw.createdAt) * 1000),
    };
  }

  async submitTransaction(envelopeXdr: string): Promise<SubmitResult> {
    await this.checkNetwork();
    const tx = TransactionBuilder.fromXDR(envelopeXdr, this.networkPassphrase);
    const hash = tx.hash().toString("hex");
    const sent = await this.server.sendTransaction(tx);
    if (sent.status === "ERROR") {
      if (!sent.errorResult) throw new Error(`Stellar RPC refused transaction ${hash} without a result`);
      return { successful: false, hash, resultCodes: resultCodesOf(sent.errorResult) };
    }
    if (sent.status === "TRY_AGAIN_LATER") throw new Error(`Stellar RPC ${this.url} is busy (TRY_AGAIN_LATER); transaction ${hash} was not sent`);
    // PENDING or DUPLICATE (sent before): its ledger's outcome is the answer.
    const deadline = Date.now() + SUBMIT_DEADLINE_MS;
    const pollMs = Math.max(100, Math.min(1000, (this.options.pollMs ?? 1000) / 2));
    for (;;) {
      const raw = (await this.server._getTransaction(hash)) as unknown as Raw;
      if (raw.status === rpc.Api.GetTransactionStatus.SUCCESS) return { successful: true, hash, ledger: Number(raw.ledger) };
      if (raw.status === rpc.Api.GetTransactionStatus.FAILED) {
        return { successful: false, hash, resultCodes: resultCodesOf(xdr.TransactionResult.fromXDR(raw.resultXdr, "base64")) };
      }
      if (Date.now() > deadline) throw new Error(`transaction ${hash} was sent but is not in a ledger after ${SUBMIT_DEADLINE_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  async findStrictReceivePaths(input: { sourceAssets: Asset[]; destinationAsset: Asset; destinationAmount: bigint }): Promise<PaymentPath[]> {
    return this.horizon ? this.horizon.findStrictReceivePaths(input) : [];
  }

  /** RPC reads trustlines by asset: `options.assets` are the ones looked up (XLM always is). */
  async loadAccount(address: string, options: { assets?: Asset[] } = {}): Promise<LedgerAccount | null> {
    await this.checkNetwork();
    // Only G... addresses have account entries (a contract's C... has none).
    if (!StrKey.isValidEd25519PublicKey(address)) return null;
    const account = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Address.fromString(address).toScAddress().accountId() }));
    const accountId = account.account().accountId();
    const memoRequired = xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId, dataName: MEMO_REQUIRED_KEY }));
    const assets = (options.assets ?? []).filter((asset) => !isNative(asset) && asset.issuer !== address);
    const trustlines = assets.map((asset) =>
      xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId, asset: new SdkAsset(asset.code, asset.issuer!).toTrustLineXDRObject() })),
    );
    const { entries } = await this.server.getLedgerEntries(account, memoRequired, ...trustlines);
    const byKey = new Map(entries.map((entry) => [entry.key.toXDR("base64"), entry.val]));
    const accountEntry = byKey.get(account.toXDR("base64"))?.account();
    if (!accountEntry) return null;
    const balances = [{ asset: XLM, balance: BigInt(accountEntry.balance().toString()) }];
    assets.forEach((asset, i) => {
      const line = byKey.get(trustlines[i]!.toXDR("base64"))?.trustLine();
      if (line) balances.push({ asset, balance: BigInt(line.balance().toString()) });
    });
    const data = byKey.get(memoRequired.toXDR("base64"))?.data();
    return {
      id: address,
      sequence: accountEntry.seqNum().toString(),
      balances,
      memoRequired: data ? Buffer.from(data.dataValue()).toString() === "1" : false,
    };
  }

  async fundTestAccount(address: string): Promise<void> {
    const friendbot = this.options.friendbotUrl ?? (await this.server.getNetwork()).friendbotUrl;
    if (!friendbot) throw new Error("This network has no friendbot");
    const response = await fetch(`${friendbot}?addr=${encodeURIComponent(address)}`);
    if (!response.ok) throw new Error(`friendbot answered ${response.status}: ${await response.text()}`);
  }
}
