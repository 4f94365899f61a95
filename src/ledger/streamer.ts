// One payment stream per settlement wallet in use: the wallets of pending payments, and of payments
// expired in the last day (so late payments are still seen), per network. Each stream resumes from
// its persisted cursor, hands every operation to the verifier in ledger order, and on any failure
// (Horizon down, a database error) closes, waits with exponential backoff and resumes from the
// cursor again: nothing is skipped, and the verifier makes anything seen twice count once.
import type { Deps } from "../context.ts";
import type { Logger } from "../shared/logger.ts";
import type { AccountLocks } from "./account-locks.ts";
import type { LedgerSource } from "./ledger-source.ts";
import { verifyLedgerPayments } from "./verifier.ts";

const LATE_WINDOW_MS = 24 * 60 * 60_000;
/** How far before a wallet's oldest open payment a fresh stream starts, for clock differences. */
const FIRST_CURSOR_MARGIN_MS = 5 * 60_000;

export interface StreamerOptions {
  sourceFor(networkPassphrase: string): LedgerSource;
  locks: AccountLocks;
  /** how often the set of wallets is re-read */
  refreshMs?: number;
  backoff?: { initialMs: number; maxMs: number };
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
  start(): void;
  stop(): Promise<void>;
}

export function createLedgerStreamer(deps: Deps & { logger: Logger }, options: StreamerOptions): LedgerStreamer {
  const refreshMs = options.refreshMs ?? 1000;
  const backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
  const streams = new Map<string, AccountStream>();
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> = Promise.resolve();
  let stopped = true;

  options.locks.onLost(() => {
    for (const [key, stream] of streams) {
      stream.close();
      streams.delete(key);
    }
  });

  async function wantedAccounts() {
    const lateSince = new Date(deps.clock.now().getTime() - LATE_WINDOW_MS);
    const rows = await deps.db.payment.groupBy({
      by: ["networkPassphrase", "settlementAddress"],
      where: { OR: [{ status: "pending" }, { status: "expired", expiresAt: { gte: lateSince } }] },
      _min: { createdAt: true },
    });
    return new Map(rows.map((r) => [`${r.networkPassphrase}|${r.settlementAddress}`, r._min.createdAt ?? deps.clock.now()]));
  }

  async function refreshNow() {
    const wanted = await wantedAccounts();
    for (const [key, stream] of streams) {
      if (wanted.has(key)) continue;
      stream.close();
      streams.delete(key);
      await options.locks.release(key);
    }
    for (const [key, oldest] of wanted) {
      if (streams.has(key) || stopped) continue;
      if (!(await options.locks.tryAcquire(key))) continue; // another process streams it
      const [networkPassphrase, account] = key.split("|") as [string, string];
      streams.set(key, openAccountStream(networkPassphrase, account, new Date(oldest.getTime() - FIRST_CURSOR_MARGIN_MS)));
    }
  }

  function openAccountStream(networkPassphrase: string, account: string, startAt: Date): AccountStream {
    const source = options.sourceFor(networkPassphrase);
    const position = { networkPassphrase, account };
    let closed = false;
    let failures = 0;
    let connection: { close(): void } | null = null;
    let retry: NodeJS.Timeout | undefined;

    async function resumeCursor(): Promise<string> {
      const where = { networkPassphrase_account: position };
      const saved = await deps.db.ledgerCursor.findUnique({ where });
      if (saved) return saved.cursor;
      // First time for this wallet: start just before its oldest open payment, and remember it.
      const cursor = await source.cursorBefore(account, startAt);
      await deps.db.ledgerCursor.upsert({ where, create: { ...position, cursor }, update: {} });
      return (await deps.db.ledgerCursor.findUniqueOrThrow({ where })).cursor;
    }

    function retryLater(error: unknown) {
      if (closed) return;
      const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
      failures++;
      deps.logger.warn("ledger stream interrupted; resuming", { account, network: networkPassphrase, retryInMs: delay, error });
      retry = setTimeout(() => void connect(), delay);
    }

    async function connect() {
      if (closed) return;
      try {
        const cursor = await resumeCursor();
        if (closed) return;
        connection = source.streamPayments(account, cursor, {
          onPayments: async (records) => {
            const outcomes = await verifyLedgerPayments(deps, position, records);
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
