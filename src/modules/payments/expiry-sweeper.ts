// Moves payments awaiting payment (pending or failed) whose expires_at has passed to `expired`
// (payment.expired), and their checkout sessions with them. Runs every second so nothing stays
// payable more than ~1 s past its expiry (the promise is 5 s). Payments move a set at a time
// (expireDuePayments: one transaction of three statements per batch), so a burst of thousands due in
// the same second expires within the promise, and each transaction holds its locks only for one
// batch. Several processes may sweep at once: each payment moves, with its events, in exactly one,
// and a payment completed meanwhile is simply left alone.
import type { Deps } from "../../context.ts";
import type { Logger } from "../../shared/logger.ts";
import { type PeriodicTask, periodicTask } from "../../shared/periodic-task.ts";
import { expireDuePayments } from "./payment-completion.ts";

/** Payments per transaction: a few milliseconds of writes each, so other writers never wait long. */
const BATCH = 500;

export interface ExpirySweeper extends PeriodicTask {
  /** Expires everything due now; returns how many payments it moved. */
  runOnce(): Promise<number>;
}

export function createExpirySweeper(
  deps: Deps & { logger: Logger },
  options: {
    intervalMs?: number;
    /** payments per transaction (the bench compares one with the default) */
    batchSize?: number;
    /** called after a sweep expired payments (their events are in the outbox) */
    onEventsCommitted?: () => void;
  } = {},
): ExpirySweeper {
  const intervalMs = options.intervalMs ?? 1000;
  const batchSize = options.batchSize ?? BATCH;

  async function runOnce(): Promise<number> {
    let moved = 0;
    for (;;) {
      const expired = await expireDuePayments(deps, batchSize);
      moved += expired.length;
      if (expired.length > 0) options.onEventsCommitted?.();
      // A batch that moved fewer than it could has left nothing due (or another sweeper has it).
      if (expired.length < batchSize) return moved;
    }
  }

  return { runOnce, ...periodicTask(runOnce, { intervalMs, onError: (error) => deps.logger.error("expiry sweep failed", { error }) }) };
}
