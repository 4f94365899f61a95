// One payment stream per network watches every settlement wallet in use: the network's ledger-wide
// stream, resumed from one persisted cursor, is matched in memory against the watched wallets (those
// of payments open for the ledger, payment-states.ts, and of refunds in flight), and only payments to
// them (and, for refunds, from them) reach the verifier.
// The watched set is read whole at start and then now and then as a safety net; in between, payments
// (and refunds) created anywhere (any process, any host) reach it as their .created outbox events, read
// before each batch is matched, so a wallet is watched before money for its new payment can arrive.
//
// Claimable balances are not on Horizon's payment stream: while a wallet has refunds whose
// transactions may reach the ledger, the process streaming its network also follows that wallet's
// operations, from before its oldest such refund (nothing to persist: a refund ends once however
// often its operation is seen), and ends the refunds its claimable balances pay.
//
// One process watches each network at a time (network-locks.ts); the others keep their set ready and
// take the lock over when that process dies. On any failure (Horizon or RPC down, a database error) a
// stream closes, waits with exponential backoff and resumes from the saved cursor: nothing is
// skipped, and the verifier makes anything seen twice count once. A fatal one (the node serves
// another network) stops that network's stream with an error in the log.
import type { Deps } from "../context.ts";
import { createEventFeed, type EventFeed } from "../modules/events/events.feed.ts";
import { keepFirstNetworkCursor, savedNetworkCursor, walletCursors } from "../modules/ledger-payments/ledger-payments.store.ts";
import { LATE_WINDOW_MS } from "../modules/payments/payment-states.ts";
import { oldestOpenForLedgerUnfollowed, walletsOpenForLedger, walletsOfPayments } from "../modules/payments/payments.store.ts";
import { recognizeClaimableBalanceRefunds } from "../modules/refunds/refunds.recognition.ts";
import { walletsAwaitingRefundTransactions, walletsOfRefunds, walletsWithRefundsInFlight } from "../modules/refunds/refunds.store.ts";
import type { Logger } from "../shared/logger.ts";
import { type LedgerSource, type PaymentBatch, fatalFaultOf } from "./ledger-source.ts";
import type { NetworkLocks } from "./network-locks.ts";
import { type OutageReport, createOutageReport } from "./outage-report.ts";
import { isSilent, verifyLedgerPayments } from "./verifier.ts";

/** How far before "now" (or an older open payment) a network's first stream starts, for clock differences. */
const FIRST_CURSOR_MARGIN_MS = 5 * 60_000;
/**
 * A batch with nothing for us moves the saved cursor at most this often: after a restart, replaying
 * a few seconds of operations to wallets nobody watches costs a skip each.
 */
const IDLE_CURSOR_SAVE_MS = 5_000;
/** payment.created events turned into wallets per query */
const CREATED_CHUNK = 500;

export interface StreamerOptions {
  sourceFor(networkPassphrase: string): LedgerSource;
  locks: NetworkLocks;
  /** how often events become watched wallets and the lock of an unwatched network is tried */
  tickMs?: number;
  /** how often the whole set of watched wallets is read again, behind the events */
  rereadMs?: number;
  backoff?: { initialMs: number; maxMs: number };
  /** how often a network that stays unavailable is summarized in the log */
  outageSummaryMs?: number;
  /** the network's outage report, shared with its source's other callers (one warning per outage, not one per caller) */
  outageReportFor?(networkPassphrase: string): OutageReport;
  /** called after a page's outcomes committed events to the outbox (the webhook worker wakes) */
  onEventsCommitted?: () => void;
}

/** How far a network's stream got, in ledgers (for lag): what arrived, and what is processed. */
export interface NetworkProgress {
  networkPassphrase: string;
  /** the ledger of the newest operation received; null before the first */
  receivedLedger: number | null;
  /** the ledger of the newest operation processed (verified and committed, or skipped) */
  processedLedger: number | null;
}

interface NetworkStream {
  progress: NetworkProgress;
  /** Follows the claimable balances these wallets create (from `since`), and stops following the others. */
  followClaimableBalances(wallets: { account: string; since: Date }[]): Promise<void>;
  close(): void;
}

export interface LedgerStreamer {
  /** Reads the watched wallets again now and tries the lock of each network that has some. */
  refresh(): Promise<void>;
  /** the networks this process streams */
  watching(): string[];
  /** whether payments to this wallet are matched (whichever process streams its network) */
  watches(networkPassphrase: string, account: string): boolean;
  /** the streams of this process, how far each got */
  progress(): NetworkProgress[];
  /** the networks whose stream stopped for good (network -> why), until the process restarts */
  stoppedNetworks(): ReadonlyMap<string, string>;
  start(): void;
  stop(): Promise<void>;
}

const splitKey = (key: string) => key.split("|") as [networkPassphrase: string, account: string];

export function createLedgerStreamer(deps: Deps & { logger: Logger }, options: StreamerOptions): LedgerStreamer {
  const tickMs = options.tickMs ?? 1000;
  const rereadMs = options.rereadMs ?? 60_000;
  const backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
  /** network -> watched wallets */
  let watched = new Map<string, Set<string>>();
  /** the networks whose lock this process holds, and their streams */
  const streams = new Map<string, NetworkStream>();
  /** network -> why its stream stopped for good (kept in `streams`, so it is not opened again) */
  const failedForGood = new Map<string, string>();
  let feed: EventFeed | null = null;
  /** payments created (their events read) whose wallets are not yet watched */
  const created: string[] = [];
  /** refunds created likewise: their wallets are watched for the payments going out */
  const refundsCreated: string[] = [];
  /** wallets watched while the whole set is being read again: kept when it is replaced */
  let addedDuringReread: Set<string> | null = null;
  let lastReread = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> = Promise.resolve();
  let catchingUp: Promise<void> = Promise.resolve();
  let stopped = true;
  /** payments expired since then still have their wallet watched */
  const lateSince = () => new Date(deps.clock.now().getTime() - LATE_WINDOW_MS);

  options.locks.onLost(() => {
    for (const [network, stream] of streams) {
      stream.close();
      streams.delete(network);
    }
  });

  function watch(key: string) {
    const [network, account] = splitKey(key);
    let accounts = watched.get(network);
    if (!accounts) watched.set(network, (accounts = new Set()));
    accounts.add(account);
    addedDuringReread?.add(key);
  }

  /**
   * Turns every payment.created event committed so far into a watched wallet. One call at a time,
   * each reading after the previous one: a caller returns only once what committed before its call
   * is watched.
   */
  function catchUpWithCreated(): Promise<void> {
    const run = catchingUp.then(async () => {
      await feed?.poll();
      for (const [pending, walletsOf] of [[created, walletsOfPayments], [refundsCreated, walletsOfRefunds]] as const) {
        while (pending.length > 0) {
          const ids = pending.splice(0, CREATED_CHUNK);
          try {
            for (const key of await walletsOf(deps.db, ids)) watch(key);
          } catch (error) {
            pending.unshift(...ids);
            throw error;
          }
        }
      }
    });
    catchingUp = run.catch(() => {});
    return run;
  }

  async function rereadWatched() {
    addedDuringReread = new Set();
    try {
      const keys = await walletsOpenForLedger(deps.db, lateSince());
      for (const key of await walletsWithRefundsInFlight(deps.db)) keys.add(key);
      for (const key of addedDuringReread) keys.add(key);
      watched = new Map();
      for (const key of keys) watch(key);
      lastReread = performance.now();
    } finally {
      addedDuringReread = null;
    }
  }

  async function tickNow() {
    if (stopped) return;
    if (!feed) {
      // Listening first, reading the set second: a payment created in between is in one or the other.
      const next = createEventFeed(deps);
      await next.listen((event) => {
        if (event.type === "payment.created") created.push(event.resourceId);
        else if (event.type === "refund.created") refundsCreated.push(event.resourceId);
      });
      feed = next;
    }
    await catchUpWithCreated();
    if (performance.now() - lastReread >= rereadMs) await rereadWatched();
    for (const [network, accounts] of watched) {
      if (stopped || accounts.size === 0 || streams.has(network)) continue;
      if (!(await options.locks.tryAcquire(network))) continue; // another process watches it
      streams.set(network, openNetworkStream(network));
    }
    if (streams.size > 0) await followRefundWallets();
  }

  /** Each stream of this process follows the claimable balances of its wallets with refunds awaiting the ledger. */
  async function followRefundWallets() {
    const awaiting = await walletsAwaitingRefundTransactions(deps.db);
    for (const [network, stream] of streams) {
      await stream.followClaimableBalances(awaiting.filter((wallet) => wallet.networkPassphrase === network));
    }
  }

  function openNetworkStream(networkPassphrase: string): NetworkStream {
    const source = options.sourceFor(networkPassphrase);
    const outage = options.outageReportFor?.(networkPassphrase) ?? createOutageReport(deps, source.url, options.outageSummaryMs, source.api);
    const progress: NetworkProgress = { networkPassphrase, receivedLedger: null, processedLedger: null };
    let closed = false;
    /** whether the failure at hand is the network's (Horizon) rather than ours (the database, the verifier) */
    let networkFailed = false;
    /** a connection that stays up this long has reached the network */
    let settled: NodeJS.Timeout | undefined;
    let failures = 0;
    let connection: { close(): void } | null = null;
    let retry: NodeJS.Timeout | undefined;
    /** when a batch with nothing for us last saved the cursor (performance.now) */
    let idleSavedAt = Number.NEGATIVE_INFINITY;

    /**
     * Where the network's first stream starts: a margin before now, or before the oldest open payment
     * of a wallet no per-wallet stream had followed, or where the furthest-behind per-wallet stream of
     * a watched wallet had got to (a deployment upgrading misses nothing paid while it was down).
     */
    async function firstCursor(): Promise<string> {
      const accounts = watched.get(networkPassphrase) ?? new Set<string>();
      const followed = [...(await walletCursors(deps.db, networkPassphrase))]
        .filter(([account, cursor]) => accounts.has(account) && source.cursorPrecedes("0", cursor))
        .map(([, cursor]) => cursor);
      const now = deps.clock.now();
      const oldest = (await oldestOpenForLedgerUnfollowed(deps.db, networkPassphrase, lateSince())) ?? now;
      const since = new Date(Math.min(oldest.getTime(), now.getTime()) - FIRST_CURSOR_MARGIN_MS);
      networkFailed = true;
      let cursor = await source.cursorAt(since);
      networkFailed = false;
      outage.reached();
      for (const behind of followed) if (source.cursorPrecedes(behind, cursor)) cursor = behind;
      return keepFirstNetworkCursor(deps.db, networkPassphrase, cursor, now);
    }

    async function resumeCursor(): Promise<string> {
      return (await savedNetworkCursor(deps.db, networkPassphrase)) ?? firstCursor();
    }

    async function onPayments(batch: PaymentBatch) {
      outage.reached();
      networkFailed = false;
      progress.receivedLedger = batch.ledger;
      if (batch.records.length > 0 || batch.outgoing.length > 0 || performance.now() - idleSavedAt >= IDLE_CURSOR_SAVE_MS) {
        const outcomes = await verifyLedgerPayments(deps, networkPassphrase, batch);
        if (batch.records.length === 0) idleSavedAt = performance.now();
        if (outcomes.some((o) => !isSilent(o))) options.onEventsCommitted?.();
        batch.records.forEach((record, i) => {
          const outcome = outcomes[i]!;
          if (!isSilent(outcome)) {
            deps.logger.info("ledger payment verified", { account: record.to, operation: record.operationId, tx: record.txHash, outcome });
          }
        });
      }
      progress.processedLedger = batch.ledger;
      networkFailed = true;
      failures = 0;
    }

    function retryLater(error: unknown) {
      clearTimeout(settled);
      if (closed) return;
      const fatal = fatalFaultOf(error);
      if (fatal) {
        // A node of another network, or one that shows no payments: retrying cannot mend it.
        deps.logger.error(fatal.message, { network: networkPassphrase });
        failedForGood.set(networkPassphrase, fatal.message);
        closed = true;
        return;
      }
      const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
      failures++;
      if (networkFailed) outage.failed(error);
      else deps.logger.warn("ledger stream interrupted; resuming", { network: networkPassphrase, retryInMs: delay, error });
      retry = setTimeout(() => void connect(), delay);
    }

    async function connect() {
      if (closed) return;
      networkFailed = false;
      try {
        const cursor = await resumeCursor();
        if (closed) return;
        // The stream's errors are the network's until a batch fails in our hands.
        networkFailed = true;
        // An SSE stream that stays open has reached Horizon; RPC's polls say so with their first page.
        if (source.api === "Horizon") settled = setTimeout(() => outage.reached(), backoff.initialMs);
        connection = source.streamPayments(cursor, {
          wantedAccounts: async () => {
            networkFailed = false;
            await catchUpWithCreated();
            networkFailed = true;
            return (account) => watched.get(networkPassphrase)?.has(account) ?? false;
          },
          onPayments,
          onError: retryLater,
        });
      } catch (error) {
        retryLater(error);
      }
    }

    /** account -> its claimable balance stream; one that failed is dropped and opened again at the next tick */
    const claimableStreams = new Map<string, { close(): void }>();

    async function followClaimableBalances(wallets: { account: string; since: Date }[]) {
      const wanted = new Set(wallets.map((wallet) => wallet.account));
      for (const [account, stream] of claimableStreams) {
        if (wanted.has(account)) continue;
        stream.close();
        claimableStreams.delete(account);
      }
      for (const { account, since } of wallets) {
        if (closed || claimableStreams.has(account)) continue;
        let cursor: string;
        try {
          cursor = await source.cursorAt(new Date(since.getTime() - FIRST_CURSOR_MARGIN_MS));
        } catch {
          continue; // the network is unreachable: its stream's outage report says so; tried again at the next tick
        }
        if (closed || claimableStreams.has(account)) continue;
        const stream = source.streamClaimableBalancesCreatedBy(account, cursor, {
          onRecords: async (records) => {
            if ((await recognizeClaimableBalanceRefunds(deps, networkPassphrase, records)) > 0) options.onEventsCommitted?.();
          },
          onError: (error) => {
            if (claimableStreams.get(account) === stream) claimableStreams.delete(account);
            deps.logger.warn("claimable balance stream interrupted; resuming at the next tick", { network: networkPassphrase, account, error });
          },
        });
        claimableStreams.set(account, stream);
      }
    }

    void connect();
    return {
      progress,
      followClaimableBalances,
      close() {
        closed = true;
        clearTimeout(retry);
        clearTimeout(settled);
        connection?.close();
        for (const stream of claimableStreams.values()) stream.close();
        claimableStreams.clear();
      },
    };
  }

  /** One tick at a time: a caller arriving meanwhile runs after the current one. */
  function runTick(): Promise<void> {
    const run = ticking.then(tickNow);
    ticking = run.catch(() => {});
    return run;
  }

  function tick() {
    runTick()
      .catch((error) => deps.logger.error("ledger streamer refresh failed", { error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, tickMs);
      });
  }

  return {
    refresh() {
      lastReread = Number.NEGATIVE_INFINITY;
      return runTick();
    },
    watching: () => [...streams.keys()],
    watches: (networkPassphrase, account) => watched.get(networkPassphrase)?.has(account) ?? false,
    progress: () => [...streams.values()].map((stream) => ({ ...stream.progress })),
    stoppedNetworks: () => failedForGood,
    start() {
      if (!stopped) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      for (const [network, stream] of streams) {
        stream.close();
        streams.delete(network);
        await options.locks.release(network).catch(() => {});
      }
      await feed?.stop();
      feed = null;
      watched = new Map();
      lastReread = Number.NEGATIVE_INFINITY;
    },
  };
}
