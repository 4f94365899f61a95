// The retention purger: deletes what the service keeps only for a while, so the database grows with
// the recent traffic, not with all of it (README "Flat at scale: background work and retention").
//   - idempotency records past their 24 h (the decisions' promise);
//   - succeeded webhook deliveries with their attempts, after config.retentionDays.deliveries;
//   - events fanned out with no delivery left, after config.retentionDays.events.
// Never a pending or failed delivery (it may still be sent or retried by hand, and its log says why
// it failed), nor an event waiting for fan-out or with a delivery kept: those stay until they may go.
// Each kind goes a chunk at a time, oldest first down an index, each chunk its own short
// transaction, so a purge of a million rows never holds a lock for long. Safe on N processes: each
// chunk is a conditional delete (PostgreSQL skips rows another process is deleting).
import type { Deps } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import type { Logger } from "../../shared/logger.ts";
import { type PeriodicTask, periodicTask } from "../../shared/periodic-task.ts";
import { deleteFannedOutEventsBefore } from "../events/events.store.ts";
import { deleteExpiredIdempotencyRecords } from "../idempotency/idempotency.service.ts";
import { deleteSucceededDeliveriesBefore } from "../webhook-deliveries/webhook-deliveries.store.ts";

const DAY_MS = 24 * 60 * 60_000;
/** Rows per transaction: a few milliseconds each. */
const CHUNK = 1000;

export interface PurgeCounts {
  idempotencyRecords: number;
  deliveries: number;
  events: number;
}

export interface RetentionPurger extends PeriodicTask {
  /** Purges everything past its time now, chunk after chunk; returns how many of each it deleted. */
  runOnce(): Promise<PurgeCounts>;
}

export function createRetentionPurger(
  deps: Deps & { logger: Logger },
  options: { intervalMs?: number; /** rows per transaction */ chunkSize?: number } = {},
): RetentionPurger {
  const intervalMs = options.intervalMs ?? 10 * 60_000;
  const chunk = options.chunkSize ?? CHUNK;
  const days = deps.config.retentionDays;
  let stopping = false;

  /** Runs `deleteChunk` until a chunk comes back short (or the purger stops); the total it deleted. */
  async function drain(deleteChunk: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteChunk();
      total += deleted;
      if (deleted < chunk || stopping) return total;
    }
  }

  /** The outbox, window after window in seq order, until past the cutoff (or the purger stops). */
  async function purgeEvents(cutoff: Date): Promise<number> {
    let total = 0;
    for (let after = 0; ; ) {
      const window = await deleteFannedOutEventsBefore(deps.db, cutoff, after, chunk);
      total += window.deleted;
      if (window.done || stopping) return total;
      after = window.lastSeq;
    }
  }

  async function runOnce(): Promise<PurgeCounts> {
    const now = deps.clock.now().getTime();
    const before = (keptDays: number) => new Date(now - keptDays * DAY_MS);
    const idempotencyRecords = await drain(() => deleteExpiredIdempotencyRecords(deps, chunk));
    // Deliveries first: an event goes only once it has none left.
    const deliveries = days.deliveries > 0 ? await drain(() => deleteSucceededDeliveriesBefore(typedSql(deps.db), before(days.deliveries), chunk)) : 0;
    const events = days.events > 0 ? await purgeEvents(before(days.events)) : 0;
    return { idempotencyRecords, deliveries, events };
  }

  async function runAndLog() {
    const counts = await runOnce();
    if (counts.idempotencyRecords + counts.deliveries + counts.events > 0) deps.logger.info("retention purge", { ...counts });
  }
  const task = periodicTask(runAndLog, { intervalMs, onError: (error) => deps.logger.error("retention purge failed", { error }) });

  return {
    runOnce,
    start() {
      stopping = false;
      task.start();
    },
    async stop() {
      // a purge in progress ends after its current chunk
      stopping = true;
      await task.stop();
    },
    wake: task.wake,
  };
}
