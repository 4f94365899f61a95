// LedgerSource over Horizon's HTTP API with @stellar/stellar-sdk. Serves the real networks and the
// built-in simulated network alike (it speaks Horizon), so both run the same code path.
import { Asset as SdkAsset, Horizon, MuxedAccount, NotFoundError, TransactionBuilder } from "@stellar/stellar-sdk";
import { type Asset, XLM, isNative } from "../shared/assets.ts";
import { streamRecords } from "./horizon-stream.ts";
import { pagingTokenOfEventCursor } from "./rpc-events.ts";
import { formatStroops, toStroops } from "../shared/money.ts";
import type {
  ClaimableBalanceStreamHandlers,
  LedgerAccount,
  LedgerPaymentRecord,
  LedgerSource,
  LedgerTransaction,
  PaymentPath,
  PaymentStreamHandlers,
  SubmitResult,
} from "./ledger-source.ts";

/** Horizon's JSON for assets: asset_type plus code and issuer under a field prefix. */
type RawRecord = Record<string, any>;

/** The most records verified in one database transaction. */
const MAX_BATCH = 200;
/** SEP-29's account data entry: "1" when the account must be paid with a memo. */
const MEMO_REQUIRED_KEY = "config.memo_required";
const PAYMENT_KINDS = new Set(["payment", "path_payment_strict_receive", "path_payment_strict_send"]);

function assetFrom(raw: RawRecord, prefix = ""): Asset {
  if (raw[`${prefix}asset_type`] === "native") return XLM;
  return { code: raw[`${prefix}asset_code`], issuer: raw[`${prefix}asset_issuer`] };
}

export const toSdkAsset = (asset: Asset) => (isNative(asset) ? SdkAsset.native() : new SdkAsset(asset.code, asset.issuer!));

/** Horizon's asset string of claimable balances: "native" or "CODE:ISSUER". */
function assetFromCanonical(text: string): Asset {
  if (text === "native") return XLM;
  const [code = "", issuer = ""] = text.split(":");
  return { code, issuer };
}

/** A create_claimable_balance operation that `account` made for one claimant, as a refund's is. */
const isClaimableBalanceBy = (raw: RawRecord, account: string) =>
  raw.type === "create_claimable_balance" && raw.source_account === account && Array.isArray(raw.claimants) && raw.claimants.length === 1;

function muxedIdOf(raw: RawRecord): string | null {
  if (raw.to_muxed_id != null) return String(raw.to_muxed_id);
  if (typeof raw.to_muxed === "string" && raw.to_muxed.startsWith("M")) return MuxedAccount.fromAddress(raw.to_muxed, "0").id();
  return null;
}

/** A paging token as the number it is (a TOID); null for anything else ("now"). */
const tokenValue = (token: string): bigint | null => (/^\d{1,19}$/.test(token) ? BigInt(token) : null);

/** The ledger a paging token lies in: TOIDs are ledger << 32 | transaction << 12 | operation. */
const ledgerOfToken = (token: string): number => Number((tokenValue(token) ?? 0n) >> 32n);

function transactionFrom(raw: RawRecord): LedgerTransaction {
  return {
    hash: raw.hash,
    successful: raw.successful !== false,
    ledger: Number(raw.ledger_attr ?? raw.ledger),
    envelopeXdr: raw.envelope_xdr,
    memoType: raw.memo_type ?? "none",
    memo: raw.memo ?? null,
    createdAt: new Date(raw.created_at),
  };
}

export interface HorizonSourceOptions {
  url: string;
  networkPassphrase: string;
  /** friendbot's URL (…/friendbot), on test networks only */
  friendbotUrl?: string;
}

export class HorizonSource implements LedgerSource {
  readonly api = "Horizon";
  readonly findsPaths = true;
  readonly networkPassphrase: string;
  readonly url: string;
  private readonly server: Horizon.Server;

  constructor(private readonly options: HorizonSourceOptions) {
    this.networkPassphrase = options.networkPassphrase;
    this.url = options.url;
    this.server = new Horizon.Server(options.url, { allowHttp: options.url.startsWith("http:") });
  }

  streamPayments(cursor: string, handlers: PaymentStreamHandlers) {
    // An RPC cursor: the network was watched through Stellar RPC before (the operator switched).
    cursor = pagingTokenOfEventCursor(cursor) ?? cursor;
    // Not joined with the transactions: each record would carry its whole envelope, for every
    // operation of the network; the few wanted records needing a memo fetch theirs.
    return this.streamInBatches("payments", cursor, handlers.onError, async (batch, isClosed) => {
      const wanted = await handlers.wantedAccounts();
      // Only payments to a watched wallet are read further (a transaction's memo may be fetched).
      const transactions = new Map<string, Promise<LedgerTransaction | null>>();
      const payments = batch.filter((raw) => PAYMENT_KINDS.has(raw.type));
      const [records, outgoing] = await Promise.all([
        Promise.all(payments.filter((raw) => wanted(raw.to)).map((raw) => this.recordFrom(raw, transactions))),
        // A watched wallet's own payments going out: its refunds (the memo names them).
        Promise.all(payments.filter((raw) => wanted(raw.from)).map((raw) => this.recordFrom(raw, transactions))),
      ]);
      const last = String(batch.at(-1)!.paging_token);
      if (!isClosed()) await handlers.onPayments({ records, outgoing, cursor: last, ledger: ledgerOfToken(last) });
    });
  }

  streamClaimableBalancesCreatedBy(account: string, cursor: string, handlers: ClaimableBalanceStreamHandlers) {
    return this.streamInBatches(`accounts/${encodeURIComponent(account)}/operations`, cursor, handlers.onError, async (batch, isClosed) => {
      const transactions = new Map<string, Promise<LedgerTransaction | null>>();
      const records = await Promise.all(batch.filter((raw) => isClaimableBalanceBy(raw, account)).map((raw) => this.recordFrom(raw, transactions)));
      if (!isClosed() && records.length > 0) await handlers.onRecords(records);
    });
  }

  /**
   * Streams Horizon's `path` (below its root) from `cursor`, handing `handle` what arrived in
   * batches of at most MAX_BATCH: one batch at a time, in arrival order; what arrives meanwhile goes
   * into the next. A failure closes the stream and is reported to `onError` once.
   */
  private streamInBatches(path: string, cursor: string, onError: (error: unknown) => void, handle: (batch: RawRecord[], isClosed: () => boolean) => Promise<void>) {
    let closed = false;
    let draining = false;
    let buffer: RawRecord[] = [];
    let stop = () => {};
    const isClosed = () => closed;
    const close = () => {
      closed = true;
      buffer = [];
      stop();
    };
    const fail = (error: unknown) => {
      if (closed) return;
      close();
      onError(error);
    };
    const drain = async () => {
      if (draining) return;
      draining = true;
      try {
        while (!closed && buffer.length > 0) await handle(buffer.splice(0, MAX_BATCH), isClosed);
      } catch (error) {
        fail(error);
      } finally {
        draining = false;
      }
    };
    stop = streamRecords(new URL(path, `${this.url.replace(/\/$/, "")}/`).toString(), cursor, {
      onRecord: (record) => {
        if (closed) return;
        buffer.push(record as unknown as RawRecord);
        void drain();
      },
      onError: fail,
    }).close;
    return { close };
  }

  /**
   * A payment (or claimable balance) record; its transaction (for the memo) is read only when the destination is not muxed,
   * once per transaction of a batch (`transactions`).
   */
  private async recordFrom(raw: RawRecord, transactions: Map<string, Promise<LedgerTransaction | null>>): Promise<LedgerPaymentRecord> {
    if (raw.type === "create_claimable_balance") return this.claimableBalanceRecordFrom(raw, transactions);
    const kind = PAYMENT_KINDS.has(raw.type) ? (raw.type as LedgerPaymentRecord["kind"]) : null;
    let tx: LedgerTransaction | null = raw.transaction_attr ? transactionFrom(raw.transaction_attr) : null;
    if (!tx && !(kind && muxedIdOf(raw))) {
      const hash = String(raw.transaction_hash);
      if (!transactions.has(hash)) transactions.set(hash, this.getTransaction(hash));
      tx = await transactions.get(hash)!;
    }
    return {
      operationId: String(raw.id),
      pagingToken: String(raw.paging_token),
      txHash: raw.transaction_hash,
      transactionSuccessful: raw.transaction_successful !== false && tx?.successful !== false,
      kind: kind ?? "other",
      from: raw.from ?? raw.source_account,
      to: raw.to ?? raw.account ?? "",
      toMuxedId: kind ? muxedIdOf(raw) : null,
      asset: kind ? assetFrom(raw) : XLM,
      amount: kind ? toStroops(String(raw.amount)) : 0n,
      sourceAsset: kind && kind !== "payment" ? assetFrom(raw, "source_") : null,
      memoType: tx?.memoType ?? null,
      memo: tx?.memo ?? null,
      ledgerCreatedAt: new Date(raw.created_at),
    };
  }

  /** A create_claimable_balance operation as the record of a payment from its source to its one claimant. */
  private async claimableBalanceRecordFrom(raw: RawRecord, transactions: Map<string, Promise<LedgerTransaction | null>>): Promise<LedgerPaymentRecord> {
    const hash = String(raw.transaction_hash);
    if (!transactions.has(hash)) transactions.set(hash, this.getTransaction(hash));
    const tx = await transactions.get(hash)!;
    return {
      operationId: String(raw.id),
      pagingToken: String(raw.paging_token),
      txHash: hash,
      transactionSuccessful: raw.transaction_successful !== false && tx?.successful !== false,
      kind: "create_claimable_balance",
      from: raw.source_account,
      to: raw.claimants[0].destination,
      toMuxedId: null,
      asset: assetFromCanonical(String(raw.asset)),
      amount: toStroops(String(raw.amount)),
      sourceAsset: null,
      memoType: tx?.memoType ?? null,
      memo: tx?.memo ?? null,
      ledgerCreatedAt: new Date(raw.created_at),
    };
  }

  async cursorAt(time: Date): Promise<string> {
    // Ledgers close every few seconds: the newest one closed before `time` is a page or two back,
    // where the network's payments would be thousands of pages on a busy network.
    let page = await this.server.ledgers().order("desc").limit(200).call();
    while (page.records.length > 0) {
      const older = page.records.find((r) => new Date(r.closed_at) < time);
      if (older) return older.paging_token;
      page = await page.next();
    }
    return "0";
  }

  cursorPrecedes(a: string, b: string): boolean {
    const [x, y] = [tokenValue(a), tokenValue(b)];
    return x !== null && y !== null && x < y;
  }

  async latestLedger(): Promise<number> {
    return (await this.server.root()).history_latest_ledger;
  }

  async getTransaction(hash: string): Promise<LedgerTransaction | null> {
    try {
      return transactionFrom((await this.server.transactions().transaction(hash).call()) as RawRecord);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async submitTransaction(envelopeXdr: string): Promise<SubmitResult> {
    const tx = TransactionBuilder.fromXDR(envelopeXdr, this.networkPassphrase);
    const hash = tx.hash().toString("hex");
    try {
      const result = await this.server.submitTransaction(tx, { skipMemoRequiredCheck: true });
      if (result.successful === false) {
        return { successful: false, hash, resultCodes: { transaction: "tx_failed", operations: [] } };
      }
      return { successful: true, hash: result.hash, ledger: result.ledger };
    } catch (error) {
      // Horizon's problem body: the SDK rejects with its HTTP client's error (body in response.data)
      // or with a BadResponseError (body in response).
      const response = (error as { response?: RawRecord } | null)?.response;
      const problem = (response?.data ?? response) as RawRecord | undefined;
      const codes = problem?.extras?.result_codes;
      if (!codes) throw error;
      return { successful: false, hash, resultCodes: { transaction: codes.transaction, operations: codes.operations ?? [] } };
    }
  }

  async findStrictReceivePaths(input: { sourceAssets: Asset[]; destinationAsset: Asset; destinationAmount: bigint }): Promise<PaymentPath[]> {
    const amount = formatStroops(input.destinationAmount);
    const page = await this.server
      .strictReceivePaths(input.sourceAssets.map(toSdkAsset), toSdkAsset(input.destinationAsset), amount)
      .call();
    return page.records.map((r) => {
      const raw = r as unknown as RawRecord;
      return {
        sourceAsset: assetFrom(raw, "source_"),
        sourceAmount: toStroops(raw.source_amount),
        path: (raw.path as RawRecord[]).map((p) => assetFrom(p)),
      };
    });
  }

  async loadAccount(address: string): Promise<LedgerAccount | null> {
    try {
      const account = await this.server.loadAccount(address);
      return {
        id: account.accountId(),
        sequence: account.sequenceNumber(),
        balances: account.balances
          .filter((b) => b.asset_type !== "liquidity_pool_shares")
          .map((b) => ({ asset: assetFrom(b as RawRecord), balance: toStroops(b.balance) })),
        memoRequired: Buffer.from(account.data_attr[MEMO_REQUIRED_KEY] ?? "", "base64").toString() === "1",
      };
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async fundTestAccount(address: string): Promise<void> {
    if (!this.options.friendbotUrl) throw new Error("This network has no friendbot");
    const response = await fetch(`${this.options.friendbotUrl}?addr=${encodeURIComponent(address)}`);
    if (!response.ok) throw new Error(`friendbot answered ${response.status}: ${await response.text()}`);
  }
}
