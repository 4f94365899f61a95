// One payment stream per settlement wallet in use: the wallets of payments open for the ledger
// (payment-states.ts: pending and failed ones, and ones expired in the last day, so late payments
// are still seen), per network. Each stream resumes from its persisted cursor, hands every
// operation to the verifier in ledger order, and on any failure (Horizon down, a database error)
// closes, waits with exponential backoff and resumes from the cursor again: nothing is skipped, and
// the verifier makes anything seen twice count once.
import type { Deps } from "../context.ts";
import { keepFirstCursor, savedCursor } from "../modules/ledger-payments/ledger-payments.store.ts";
import { LATE_WINDOW_MS } from "../modules/payments/payment-states.ts";
import { oldestOpenForLedger, walletsOpenForLedger } from "../modules/payments/payments.store.ts";
import type { Logger } from "../shared/logger.ts";
import type { AccountLocks } from "./account-locks.ts";
import type { LedgerSource } from "./ledger-source.ts";
import { type OutageReport, createOutageReport } from "./outage-report.ts";
import { verifyLedgerPayments } from "./verifier.ts";

/** How far before a wallet's oldest open payment a fresh stream starts, for clock differences. */
const FIRST_CURSOR_MARGIN_MS = 5 * 60_000;

export interface StreamerOptions {
  sourceFor(networkPassphrase: string): LedgerSource;
  locks: AccountLocks;
  /** how often the set of wallets is re-read */
  refreshMs?: number;
  backoff?: { initialMs: number; maxMs: number };
  /** how often a network that stays unreachable is summarized in the log */
  outageSummaryMs?: number;
  /** called after a page's outcomes committed events to the outbox (the webhook worker wakes) */
  onEventsCommitted?: () => void;
}

interface AccountStream {
  close(): void;
}

export interface LedgerStreamer {
  /** Opens streams for wallets that now need one and closes the others. */
  refresh(): Promise<void>;
  /** accounts streamed by this process, as "passphrase|G..." */
  streaming(): string[];
  /** per network this process streams: the ledger of the newest operation it has processed (the lag on /metrics) */
  processedLedgers(): Map<string, number>;
  start(): void;
  stop(): Promise<void>;
}

export function createLedgerStreamer(deps: Deps & { logger: Logger }, options: StreamerOptions): LedgerStreamer {
  const refreshMs = options.refreshMs ?? 1000;
  const backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
  const streams = new Map<string, AccountStream>();
  const processedLedger = new Map<string, number>();
  /** per network, shared by its wallets' streams: one warning for an unreachable Horizon, not one per wallet */
  const outages = new Map<string, OutageReport>();
  const outageOf = (source: LedgerSource) => {
    let report = outages.get(source.networkPassphrase);
    if (!report) outages.set(source.networkPassphrase, (report = createOutageReport(deps, source.url, options.outageSummaryMs)));
    return report;
  };
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> = Promise.resolve();
  let stopped = true;
  /** payments expired since then still have their wallet streamed */
  const lateSince = () => new Date(deps.clock.now().getTime() - LATE_WINDOW_MS);

  options.locks.onLost(() => {
    for (const [key, stream] of streams) {
      stream.close();
      streams.delete(key);
    }
  });

  async function refreshNow() {
    const wanted = await walletsOpenForLedger(deps.db, lateSince());
    for (const [key, stream] of streams) {
      if (wanted.has(key)) continue;
      stream.close();
      streams.delete(key);
      await options.locks.release(key);
    }
    for (const key of wanted) {
      if (streams.has(key) || stopped) continue;
      if (!(await options.locks.tryAcquire(key))) continue; // another process streams it
      const [networkPassphrase, account] = key.split("|") as [string, string];
      streams.set(key, openAccountStream(networkPassphrase, account));
    }
  }

  function openAccountStream(networkPassphrase: string, account: string): AccountStream {
    const source = options.sourceFor(networkPassphrase);
    const position = { networkPassphrase, account };
    const outage = outageOf(source);
    let closed = false;
    /** whether the failure at hand is the network's (Horizon) rather than ours (the database, the verifier) */
    let networkFailed = false;
    /** a connection that stays up this long has reached the network */
    let settled: NodeJS.Timeout | undefined;
    let failures = 0;
    let connection: { close(): void } | null = null;
    let retry: NodeJS.Timeout | undefined;
    /** when the wallet's oldest open payment was created; read once (it reads every open payment of the wallet) */
    let oldestOpen: Promise<Date> | undefined;

    async function readOldestOpen(): Promise<Date> {
      return (await oldestOpenForLedger(deps.db, position, lateSince())) ?? deps.clock.now();
    }

    async function resumeCursor(): Promise<string> {
      const saved = await savedCursor(deps.db, position);
      if (saved !== null) return saved;
      // First time for this wallet: start just before its oldest open payment, and remember it.
      oldestOpen ??= readOldestOpen().catch((error: unknown) => {
        oldestOpen = undefined;
        throw error;
      });
      const before = new Date((await oldestOpen).getTime() - FIRST_CURSOR_MARGIN_MS);
      networkFailed = true;
      const cursor = await source.cursorBefore(account, before);
      networkFailed = false;
      outage.reached();
      return keepFirstCursor(deps.db, position, cursor, deps.clock.now());
    }

    function retryLater(error: unknown) {
      clearTimeout(settled);
      if (closed) return;
      const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
      failures++;
      if (networkFailed) outage.failed(error);
      else deps.logger.warn("ledger stream interrupted; resuming", { account, network: networkPassphrase, retryInMs: delay, error });
      retry = setTimeout(() => void connect(), delay);
    }

    async function connect() {
      if (closed) return;
      networkFailed = false;
      try {
        const cursor = await resumeCursor();
        if (closed) return;
        // The stream's errors are the network's until a page of records fails in our hands.
        networkFailed = true;
        settled = setTimeout(() => outage.reached(), backoff.initialMs);
        connection = source.streamPayments(account, cursor, {
          onPayments: async (records) => {
            outage.reached();
            networkFailed = false;
            const outcomes = await verifyLedgerPayments(deps, position, records);
            // A paging token is a TOID: the ledger sequence is its upper 32 bits.
            const ledger = Number(BigInt(records.at(-1)!.pagingToken) >> 32n);
            if (ledger > (processedLedger.get(networkPassphrase) ?? 0)) processedLedger.set(networkPassphrase, ledger);
            networkFailed = true;
            failures = 0;
            if (outcomes.some((o) => o !== "ignored" && o !== "duplicate")) options.onEventsCommitted?.();
            records.forEach((record, i) => {
              const outcome = outcomes[i]!;
              if (outcome !== "ignored" && outcome !== "duplicate") {
                deps.logger.info("ledger payment verified", { account, operation: record.operationId, tx: record.txHash, outcome });
              }
            });
          },
          onError: retryLater,
        });
      } catch (error) {
        retryLater(error);
      }
    }

    void connect();
    return {
      close() {
        closed = true;
        clearTimeout(retry);
        clearTimeout(settled);
        connection?.close();
      },
    };
  }

  function refresh(): Promise<void> {
    // One refresh at a time: a caller arriving meanwhile runs after the current one.
    const run = refreshing.then(refreshNow);
    refreshing = run.catch(() => {});
    return run;
  }

  function tick() {
    refresh()
      .catch((error) => deps.logger.error("ledger streamer refresh failed", { error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, refreshMs);
      });
  }

  return {
    refresh,
    streaming: () => [...streams.keys()],
    processedLedgers: () =>
      new Map([...processedLedger].filter(([network]) => [...streams.keys()].some((key) => key.startsWith(`${network}|`)))),
    start() {
      if (!stopped) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await refreshing;
      for (const [key, stream] of streams) {
        stream.close();
        streams.delete(key);
        await options.locks.release(key).catch(() => {});
      }
    },
  };
}
