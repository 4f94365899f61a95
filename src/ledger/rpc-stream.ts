// The payment stream of a Stellar RPC node: getEvents polled for the CAP-67 asset events of every
// Stellar asset contract, matched in memory against the watched wallets as the Horizon stream is,
// handed over in batches with the cursor to resume from. RPC keeps a window of recent ledgers only:
// a cursor older than the window gets one warning naming the gap in ledgers, and what getTransactions
// still has of the gap is read from there; the rest is lost to this node (the README says so).
// Before the first poll the node is checked: its network (getNetwork) and that it emits events for
// classic operations (stellar-core's EMIT_CLASSIC_EVENTS, protocol 23): a node without them would
// show no payment at all, so it is an error, not an empty stream.
import { FeeBumpTransaction, StrKey, TransactionBuilder, type rpc, xdr } from "@stellar/stellar-sdk";
import { type Asset, sameAsset } from "../shared/assets.ts";
import type { Logger } from "../shared/logger.ts";
import { type LedgerPaymentRecord, LedgerSourceFatalError, type PaymentStreamHandlers } from "./ledger-source.ts";
import {
  ASSET_EVENT_TOPICS,
  AssetContracts,
  type AssetEvent,
  type AssetMovement,
  claimantOf,
  cursorBeforeLedger,
  eventCursorOfPagingToken,
  isClaimableBalanceAddress,
  memoOf,
  operationIndexOfEventId,
  eventIdOf,
  isEventId,
  ledgerOfEventId,
  movementOf,
  recordOf,
} from "./rpc-events.ts";

/** What the stream needs of its source (rpc-source.ts). */
export interface RpcNode {
  readonly url: string;
  readonly networkPassphrase: string;
  readonly server: rpc.Server;
  /** rejects with a LedgerSourceFatalError when the node serves another network */
  checkNetwork(): Promise<void>;
}

/** Events asked for per getEvents call (RPC's maximum is 10,000). */
const PAGE_LIMIT = 2_000;
/** The most events verified in one database transaction, as the Horizon stream does. */
const MAX_BATCH = 200;
/** Recent ledgers read for a classic payment that shows whether the node emits classic events. */
const PROBE_LEDGERS = 100;
const CLASSIC_PAYMENT_OPERATIONS = new Set(["payment", "pathPaymentStrictReceive", "pathPaymentStrictSend", "createAccount", "accountMerge"]);

type Raw = Record<string, any>;

/** Ledgers inside a full window that a read starts at: its oldest end moves on (a ledger every 5 s) while we ask. */
const WINDOW_SAFETY_LEDGERS = 10;

/**
 * The oldest ledger of getHealth's window (the transactions') a read can start at and still find
 * there: a few ledgers in when the window is full and moving, its first when it is not yet full
 * (a node holding all its history since it started drops nothing).
 */
function firstSafeLedger(health: Raw): number {
  const oldest = Number(health.oldestLedger ?? 1);
  const retention = Number(health.ledgerRetentionWindow ?? 0);
  const full = retention === 0 || Number(health.latestLedger) - oldest + 1 >= retention;
  return full ? oldest + WINDOW_SAFETY_LEDGERS : oldest;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });

/** An event of getEvents' answer; null when its topics are not XDR (a node's or a proxy's fault). */
const eventFromRaw = (raw: Raw): AssetEvent | null => {
  let value: xdr.ScVal | undefined;
  let topics: xdr.ScVal[];
  try {
    topics = ((raw.topic ?? []) as string[]).map((topic) => xdr.ScVal.fromXDR(topic, "base64"));
  } catch {
    return null;
  }
  return {
    id: String(raw.id),
    ledger: Number(raw.ledger),
    ledgerClosedAt: String(raw.ledgerClosedAt),
    txHash: String(raw.txHash),
    contractId: String(raw.contractId ?? ""),
    topics,
    value: () => (value ??= xdr.ScVal.fromXDR(String(raw.value), "base64")),
  };
};

/** A transaction's contract events per operation: the `events` field of RPC 23, else its meta (v4). */
function operationEventsOf(raw: Raw): xdr.ContractEvent[][] | null {
  const listed = raw.events?.contractEventsXdr as string[][] | undefined;
  if (listed) return listed.map((events) => events.map((event) => xdr.ContractEvent.fromXDR(event, "base64")));
  if (!raw.resultMetaXdr) return null;
  const meta = xdr.TransactionMeta.fromXDR(raw.resultMetaXdr, "base64");
  if (meta.switch() !== 4) return null; // before protocol 23 classic operations emit no events
  return meta.v4().operations().map((op) => op.events());
}

/** The asset events of the transactions of a getTransactions page, with RPC's event ids. */
function eventsOfTransactions(transactions: Raw[]): AssetEvent[] {
  const events: AssetEvent[] = [];
  for (const tx of transactions) {
    if (tx.status !== "SUCCESS") continue;
    const closedAt = new Date(Number(tx.createdAt) * 1000).toISOString();
    (operationEventsOf(tx) ?? []).forEach((operationEvents, operation) =>
      operationEvents.forEach((event, index) => {
        const body = event.body().v0();
        const contract = event.contractId();
        events.push({
          id: eventIdOf(Number(tx.ledger), Number(tx.applicationOrder), operation, index),
          ledger: Number(tx.ledger),
          ledgerClosedAt: closedAt,
          txHash: String(tx.txHash),
          contractId: contract ? StrKey.encodeContract(Buffer.from(contract as unknown as Buffer)) : "",
          topics: body.topics(),
          value: () => body.data(),
        });
      }),
    );
  }
  return events;
}


/**
 * Whether the node emits events for classic operations: the most recent successful classic payment
 * among the first page of recent ledgers carries its transfer event (the node's setting may have
 * changed since older ones). Null when no classic payment is there to tell.
 */
export async function emitsClassicEvents(source: RpcNode): Promise<boolean | null> {
  const health = (await source.server.getHealth()) as unknown as Raw;
  const latest = Number(health.latestLedger);
  const startLedger = Math.max(firstSafeLedger(health), latest - PROBE_LEDGERS, 1);
  if (startLedger > latest) return null;
  const page = (await source.server._getTransactions({ startLedger, pagination: { limit: 200 } })) as unknown as Raw;
  for (const tx of ((page.transactions ?? []) as Raw[]).reverse()) {
    if (tx.status !== "SUCCESS" || !tx.envelopeXdr) continue;
    let parsed = TransactionBuilder.fromXDR(tx.envelopeXdr, source.networkPassphrase);
    if (parsed instanceof FeeBumpTransaction) parsed = parsed.innerTransaction;
    if (!parsed.operations.some((op) => CLASSIC_PAYMENT_OPERATIONS.has(op.type))) continue;
    const events = operationEventsOf(tx);
    return events !== null && events.some((operation) => operation.length > 0);
  }
  return null;
}

export interface AssetEventStreamOptions {
  logger: Logger;
  /** how long to wait for new events once caught up */
  pollMs: number;
}

export function streamAssetEvents(source: RpcNode, cursor: string, handlers: PaymentStreamHandlers, options: AssetEventStreamOptions) {
  const abort = new AbortController();
  const contracts = new AssetContracts(source.networkPassphrase);
  const { logger } = options;

  /** Hands over `events` (in order) in batches; `endCursor`/`endLedger`: where the last batch leaves off. */
  async function handOver(events: AssetEvent[], endCursor: string, endLedger: number) {
    if (events.length === 0) {
      await handlers.onPayments({ records: [], outgoing: [], cursor: endCursor, ledger: endLedger });
      return;
    }
    const movements = events.map((event) => movementOf(event, contracts));
    /** operation (the event id's TOID) -> index of its first event */
    const firstOfOperation = new Map<string, number>();
    events.forEach((event, i) => {
      const operation = event.id.slice(0, 19);
      if (!firstOfOperation.has(operation)) firstOfOperation.set(operation, i);
    });
    /**
     * What the payer spent: a path payment's trades come before its payment in its operation's
     * events, and the payer's first transfer out of them is in the asset it sent.
     */
    const spentBy = (i: number, movement: AssetMovement): Asset | null => {
      for (let j = firstOfOperation.get(events[i]!.id.slice(0, 19)) ?? i; j < i; j++) {
        const earlier = movements[j];
        if (earlier?.from === movement.from) return sameAsset(earlier.asset, movement.asset) ? null : earlier.asset;
      }
      return null;
    };
    /** transaction hash -> its envelope, read once per page for the claimable balances a watched wallet created */
    const envelopes = new Map<string, Promise<string | null>>();
    /**
     * A transfer from a watched wallet into a claimable balance (a refund to an account without a
     * trustline): its event names the balance, so the claimant and the memo come from the transaction.
     */
    const claimableBalanceRecord = async (event: AssetEvent, record: LedgerPaymentRecord): Promise<LedgerPaymentRecord> => {
      let envelope = envelopes.get(event.txHash);
      if (!envelope) {
        envelope = source.server._getTransaction(event.txHash).then((raw) => ((raw as unknown as Raw).envelopeXdr as string | undefined) ?? null);
        envelopes.set(event.txHash, envelope);
      }
      const envelopeXdr = await envelope;
      const claimant = envelopeXdr ? claimantOf(envelopeXdr, source.networkPassphrase, operationIndexOfEventId(event.id)) : null;
      if (!envelopeXdr || !claimant) return record;
      const { memoType, memo } = memoOf(xdr.TransactionEnvelope.fromXDR(envelopeXdr, "base64"), source.networkPassphrase);
      return { ...record, kind: "create_claimable_balance", to: claimant, memoType, memo };
    };
    for (let start = 0; start < events.length && !abort.signal.aborted; start += MAX_BATCH) {
      const end = Math.min(events.length, start + MAX_BATCH);
      const last = end === events.length;
      const records: LedgerPaymentRecord[] = [];
      const outgoing: LedgerPaymentRecord[] = [];
      if (movements.slice(start, end).some((m) => m !== null)) {
        const wanted = await handlers.wantedAccounts();
        for (let i = start; i < end; i++) {
          const movement = movements[i];
          if (!movement || !(wanted(movement.to) || wanted(movement.from))) continue;
          let record: LedgerPaymentRecord;
          try {
            record = recordOf(events[i]!, movement);
          } catch (error) {
            // Not a payment anyone can count: said once, and the stream goes on past it.
            logger.warn("Stellar RPC event not understood; skipped", { event: events[i]!.id, tx: events[i]!.txHash, reason: (error as Error).message });
            continue;
          }
          if (wanted(movement.to)) {
            const spent = spentBy(i, movement);
            // Strict send and strict receive read alike in events; nothing downstream tells them apart.
            records.push(spent ? { ...record, kind: "path_payment_strict_receive", sourceAsset: spent } : record);
          }
          if (wanted(movement.from)) outgoing.push(isClaimableBalanceAddress(movement.to) ? await claimableBalanceRecord(events[i]!, record) : record);
        }
      }
      const tail = events[end - 1]!;
      await handlers.onPayments({
        records,
        outgoing,
        cursor: last && endCursor > tail.id ? endCursor : tail.id,
        ledger: last ? Math.max(endLedger, tail.ledger) : tail.ledger,
      });
    }
  }

  /** getEvents' window (it may be shorter than getHealth's, which is the transactions'). */
  async function eventsWindow(): Promise<{ oldest: number; latest: number }> {
    const health = (await source.server.getHealth()) as unknown as Raw;
    const latest = Number(health.latestLedger);
    const probe = (await source.server._getEvents({ filters: [], startLedger: latest, limit: 1 })) as unknown as Raw;
    return { oldest: Number(probe.oldestLedger ?? health.oldestLedger), latest };
  }

  /**
   * The ledgers from the cursor's up to a little inside getEvents' window, which no longer has them:
   * read from getTransactions as far back as the node still has transactions, with one warning
   * naming the gap and the ledgers lost (those older than the transactions' window too). Returns
   * the cursor getEvents resumes from.
   */
  async function catchUp(from: string, window: { oldest: number; latest: number }): Promise<string> {
    const eventsOldest = window.oldest;
    const fromLedger = Math.max(1, ledgerOfEventId(from));
    const transactionsOldest = firstSafeLedger((await source.server.getHealth()) as unknown as Raw);
    // The window's oldest end moves on while we read: getEvents resumes a little inside it.
    const resumeLedger = Math.min(eventsOldest + WINDOW_SAFETY_LEDGERS, window.latest);
    const readFrom = Math.max(fromLedger, transactionsOldest);
    let position = from;
    let lostFrom = fromLedger;
    let lostTo = readFrom - 1;
    try {
      if (readFrom < resumeLedger) {
        let page = (await source.server._getTransactions({ startLedger: readFrom, pagination: { limit: 200 } })) as unknown as Raw;
        for (;;) {
          const all = (page.transactions ?? []) as Raw[];
          const transactions = all.filter((tx) => Number(tx.ledger) < resumeLedger);
          const events = eventsOfTransactions(transactions).filter((event) => event.id > position);
          if (events.length > 0) {
            await handOver(events, events.at(-1)!.id, events.at(-1)!.ledger);
            position = events.at(-1)!.id;
          }
          if (all.length === 0 || Number(all.at(-1)!.ledger) >= resumeLedger - 1 || abort.signal.aborted) break;
          page = (await source.server._getTransactions({ pagination: { cursor: page.cursor, limit: 200 } })) as unknown as Raw;
        }
      }
    } catch (error) {
      if (abort.signal.aborted) throw error;
      // The node answers transactions no further back than it said: all of the gap is lost.
      logger.debug("getTransactions does not reach the saved cursor", { reason: (error as Error).message });
      [lostFrom, lostTo] = [fromLedger, resumeLedger - 1];
    }
    const lost = Math.max(0, lostTo - lostFrom + 1);
    const gap = { network: source.networkPassphrase, cursorLedger: fromLedger, oldestLedger: eventsOldest, gapLedgers: eventsOldest - fromLedger, lostLedgers: lost };
    if (lost > 0) {
      logger.warn(
        `Stellar RPC ${source.url} no longer has ledgers ${lostFrom}-${lostTo} (${lost} ledgers) after the saved cursor: payments in them are not seen by this service; check them on a full-history source and complete them by hand`,
        gap,
      );
    } else {
      logger.warn(
        `Stellar RPC ${source.url}: the saved cursor (ledger ${fromLedger}) is ${gap.gapLedgers} ledgers older than getEvents' window (from ledger ${eventsOldest}); ledgers ${fromLedger}-${resumeLedger - 1} were read from getTransactions`,
        gap,
      );
    }
    const resume = cursorBeforeLedger(resumeLedger);
    return position > resume ? position : resume;
  }

  /** A page's events; one that cannot be read is skipped with a warning naming it, and the rest go on. */
  function readableEvents(raw: Raw[]): AssetEvent[] {
    const events: AssetEvent[] = [];
    for (const item of raw) {
      const event = eventFromRaw(item);
      if (event) events.push(event);
      else logger.warn("Stellar RPC event not understood (its topics are not XDR); skipped", { event: String(item.id), tx: String(item.txHash) });
    }
    return events;
  }

  async function run() {
    await source.checkNetwork();
    const classic = await emitsClassicEvents(source);
    if (classic === false) {
      throw new LedgerSourceFatalError(
        `Stellar RPC ${source.url} emits no events for classic operations (stellar-core's EMIT_CLASSIC_EVENTS is off, or the network is before protocol 23): no payment would be seen; this network is stopped. Use a node that emits them, or Horizon`,
      );
    }
    const window = await eventsWindow();
    // A Horizon paging token: the network was watched through Horizon before (the operator switched).
    const start = eventCursorOfPagingToken(cursor) ?? cursor;
    let position = isEventId(start) ? start : cursorBeforeLedger(window.oldest);
    if (ledgerOfEventId(position) < window.oldest && position !== cursorBeforeLedger(window.oldest)) position = await catchUp(position, window);
    const filters = [{ type: "contract" as const, topics: ASSET_EVENT_TOPICS }];
    const pageAfter = (cursor: string) => {
      const request = source.server._getEvents({ filters, cursor, limit: PAGE_LIMIT }) as unknown as Promise<Raw>;
      request.catch(() => {}); // a prefetched page's failure is met when it is awaited (or not at all, once closed)
      return request;
    };
    let request = pageAfter(position);
    while (!abort.signal.aborted) {
      const page = await request;
      if (abort.signal.aborted) return;
      const raw = (page.events ?? []) as Raw[];
      const events = readableEvents(raw);
      const lastId = raw.length > 0 ? String(raw.at(-1)!.id) : undefined;
      const next = typeof page.cursor === "string" && page.cursor !== "" ? page.cursor : (lastId ?? position);
      const full = raw.length >= PAGE_LIMIT;
      const lastLedger = raw.length > 0 ? Number(raw.at(-1)!.ledger) : 0;
      // A full page is part of a burst: the next one is asked for now, and travels while this one is verified.
      if (full) request = pageAfter(next);
      await handOver(events, next, full ? lastLedger : Number(page.latestLedger ?? lastLedger));
      position = next;
      if (!full) {
        await sleep(options.pollMs, abort.signal);
        if (!abort.signal.aborted) request = pageAfter(position);
      }
    }
  }

  run().catch((error: unknown) => {
    if (abort.signal.aborted) return;
    abort.abort();
    handlers.onError(error);
  });
  return { close: () => abort.abort() };
}
