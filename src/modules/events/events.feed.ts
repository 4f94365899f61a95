// The live side of the outbox: reads committed Event rows in `seq` order and hands them to in-process
// listeners (checkout pages, dashboards). Only committed rows are ever visible to the query, so a
// listener never sees a change that could still roll back.
//
// Wake-ups: on PostgreSQL a statement trigger on "Event" (a migration's) calls pg_notify, which PostgreSQL delivers
// only when the inserting transaction commits, to every process listening; a slow poll stays as a
// safety net. On SQLite (one process) the poll is the only source.
//
// PostgreSQL hands out `seq` at insert but transactions commit in any order, so a row with a smaller
// seq can appear after a larger one was read. Skipped numbers are remembered as gaps and re-read for
// a while; a gap that never fills was a rolled-back insert.
import pg from "pg";
import type { Deps } from "../../context.ts";
import { postgresSchema } from "../../db/client.ts";
import type { Logger } from "../../shared/logger.ts";
import { type OutboxEvent, eventSeqsAfter, newestEventSeq, outboxEventsAfter } from "./events.store.ts";

export type OutboxListener = (event: OutboxEvent) => void;

export interface EventFeed {
  /**
   * Starts the feed on the first listener. Resolves once every event committed from now on will
   * reach the listener, so state read afterwards plus the events that follow miss nothing.
   */
  listen(listener: OutboxListener): Promise<() => void>;
  /** Reads whatever committed since the last read now, instead of waiting for the next wake-up. */
  poll(): Promise<void>;
  stop(): Promise<void>;
}

export interface EventFeedOptions {
  /** how often to read without a wake-up; the only source on SQLite */
  pollIntervalMs?: number;
  /** how long a skipped seq is re-read before it counts as rolled back */
  gapTimeoutMs?: number;
}

const NOTIFY_CHANNEL = "stellar_pay_events";
const BATCH = 1000;

export function createEventFeed(deps: Deps & { logger: Logger }, options: EventFeedOptions = {}): EventFeed {
  const postgres = deps.config.dialect === "postgresql";
  const pollIntervalMs = options.pollIntervalMs ?? (postgres ? 2000 : 100);
  const gapTimeoutMs = options.gapTimeoutMs ?? 60_000;
  const listeners = new Set<OutboxListener>();
  const gaps = new Map<number, number>(); // seq -> when first missed (ms)
  let lastSeq = 0;
  let starting: Promise<void> | null = null;
  let ready = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let polling: Promise<void> | null = null;
  let pollAgain = false;
  let listener: PostgresListener | null = null;

  async function start() {
    lastSeq = await newestEventSeq(deps.db);
    // Transactions still open at start hold seqs below the newest: watch the recent holes as gaps.
    const seen = new Set(await eventSeqsAfter(deps.db, lastSeq - BATCH));
    for (let seq = Math.max(1, lastSeq - BATCH + 1); seq < lastSeq; seq++) if (!seen.has(seq)) gaps.set(seq, Date.now());
    if (postgres) {
      const schema = postgresSchema(deps.config.databaseUrl);
      // Whatever committed while no listener was connected is read on (re)connection.
      listener = await listenForNotifications(deps, NOTIFY_CHANNEL, {
        onPayload: (payload) => payload === schema && void poll(),
        onConnect: () => void poll(),
      });
    }
    ready = true;
    schedule();
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => void poll().finally(schedule), pollIntervalMs);
    timer.unref();
  }

  async function readOnce(): Promise<number> {
    const now = Date.now();
    for (const [seq, since] of gaps) if (now - since > gapTimeoutMs) gaps.delete(seq);
    const rows = await outboxEventsAfter(deps.db, lastSeq, [...gaps.keys()], BATCH);
    let fresh = 0;
    for (const row of rows) {
      if (row.seq <= lastSeq) {
        gaps.delete(row.seq);
      } else {
        for (let missing = lastSeq + 1; missing < row.seq; missing++) gaps.set(missing, now);
        lastSeq = row.seq;
        fresh++;
      }
      for (const notify of listeners) {
        try {
          notify(row);
        } catch (error) {
          deps.logger.error("live update listener failed", { error });
        }
      }
    }
    return fresh;
  }

  /** One reader at a time; a wake-up during a read causes one more read after it. */
  function poll(): Promise<void> {
    if (!ready || stopped) return Promise.resolve();
    if (polling) {
      pollAgain = true;
      return polling;
    }
    polling = (async () => {
      try {
        do {
          pollAgain = false;
          while ((await readOnce()) === BATCH);
        } while (pollAgain && !stopped);
      } catch (error) {
        if (!stopped) deps.logger.error("reading the outbox failed", { error });
      } finally {
        polling = null;
      }
    })();
    return polling;
  }

  return {
    async listen(fn) {
      listeners.add(fn);
      starting ??= start().catch((error) => {
        deps.logger.error("live updates failed to start; the next subscriber retries", { error });
        starting = null;
        throw error;
      });
      try {
        await starting;
      } catch (error) {
        listeners.delete(fn);
        throw error;
      }
      return () => void listeners.delete(fn);
    },
    poll,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await starting?.catch(() => undefined);
      await polling;
      await listener?.close();
    },
  };
}

export interface PostgresListener {
  close(): Promise<void>;
}

/**
 * LISTEN to `channel` on a dedicated connection, reconnecting when it is lost. The outbox's channel
 * is notified by the migration's trigger (prisma/migrations/postgresql/0005_event_notify_trigger),
 * with the schema's name as payload; the live delivery log's by the webhook worker
 * and the other live screens' by their writers (events/change-channel.ts).
 */
export async function listenForNotifications(
  deps: Deps & { logger: Logger },
  channel: string,
  handlers: { onPayload(payload: string): void; onConnect?(): void },
): Promise<PostgresListener> {
  const url = new URL(deps.config.databaseUrl);
  url.searchParams.delete("schema");
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  async function connect() {
    const next = new pg.Client({ connectionString: url.toString() });
    next.on("error", (error) => {
      deps.logger.warn("live updates lost their PostgreSQL listener; reconnecting", { error });
      void next.end().catch(() => undefined);
      if (client === next) client = null;
      if (!closed) retry = setTimeout(() => void connect().catch(() => undefined), 1000);
    });
    await next.connect();
    next.on("notification", (message) => handlers.onPayload(message.payload ?? ""));
    await next.query(`LISTEN ${channel}`);
    if (closed) return void (await next.end());
    client = next;
    handlers.onConnect?.();
  }

  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
