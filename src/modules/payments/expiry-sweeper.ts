// Moves payments awaiting payment (pending or failed) whose expires_at has passed to `expired`
// (payment.expired), and their checkout sessions with them. Runs every second so nothing stays
// payable more than ~1 s past its expiry (the promise is 5 s). Each payment moves in its own
// transaction with a conditional update: several processes may sweep at once, and a payment
// completed meanwhile is simply left alone.
// About once an hour it also deletes idempotency records past their 24 h.
import type { Deps } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { deleteExpiredIdempotencyRecords } from "../idempotency/idempotency.service.ts";
import { expirePayment } from "./payment-completion.ts";
import { paymentIdsDueToExpire } from "./payments.store.ts";

const BATCH = 200;
const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60_000;

export interface ExpirySweeper {
  /** Expires everything due now; returns how many payments it moved. */
  runOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createExpirySweeper(
  deps: Deps & { logger: Logger },
  options: { intervalMs?: number; /** called after a sweep expired payments (their events are in the outbox) */ onEventsCommitted?: () => void } = {},
): ExpirySweeper {
  const intervalMs = options.intervalMs ?? 1000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let lastPurgeMs = Number.NEGATIVE_INFINITY;

  async function runOnce(): Promise<number> {
    const now = deps.clock.now().getTime();
    if (now - lastPurgeMs >= IDEMPOTENCY_PURGE_INTERVAL_MS) {
      await deleteExpiredIdempotencyRecords(deps);
      lastPurgeMs = now;
    }
    let moved = 0;
    for (;;) {
      const due = await paymentIdsDueToExpire(deps.db, deps.clock.now(), BATCH);
      for (const id of due) {
        try {
          await deps.db.$transaction((tx) => expirePayment(tx, deps, { id }));
          moved++;
        } catch (error) {
          // Completed (or expired by another process) since it was read: nothing to do.
          if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
        }
      }
      if (due.length < BATCH) {
        if (moved > 0) options.onEventsCommitted?.();
        return moved;
      }
    }
  }

  function tick() {
    running = runOnce()
      .catch((error) => deps.logger.error("expiry sweep failed", { error }))
      .finally(() => {
        if (timer) timer = setTimeout(tick, intervalMs);
      });
  }

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setTimeout(tick, 0);
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
