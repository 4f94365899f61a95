// The claim page's live status: a refund as it is, then again after each of its events (created,
// succeeded, failed, canceled), read from the committed outbox through the app's one event feed
// (checkout.live.ts), so the page shows the money arriving without polling.
import type { AppDeps } from "../../context.ts";
import type { Refund } from "../../generated/sqlite/client.ts";
import { notFound } from "../../errors.ts";
import { liveUpdatesFor } from "../checkout/checkout.live.ts";
import { refundById } from "./refunds.store.ts";

/** The refund `id` now, then after every event about it; throws Not found for an unknown id. */
export async function watchRefund(deps: AppDeps, id: string): Promise<AsyncIterableIterator<Refund>> {
  const pending: Refund[] = [];
  let waiting: ((result: IteratorResult<Refund>) => void) | null = null;
  let closed = false;
  let reading = Promise.resolve();
  const push = (refund: Refund) => {
    if (closed) return;
    if (waiting) waiting({ value: refund, done: false });
    else pending.push(refund);
    waiting = null;
  };
  // Listening first, reading second: an event committed in between is in one or the other. Reads run
  // one after another, so the page sees the refund's states in order.
  const stopListening = await liveUpdatesFor(deps).feed.listen((event) => {
    if (event.resourceId !== id) return;
    reading = reading.then(async () => {
      const refund = await refundById(deps.db, id);
      if (refund) push(refund);
    }).catch((error) => deps.logger.error("live refund update failed", { error, id }));
  });
  const first = await refundById(deps.db, id);
  if (!first) {
    stopListening();
    throw notFound();
  }
  push(first);
  const iterator: AsyncIterableIterator<Refund> = {
    next: () => {
      if (pending.length) return Promise.resolve({ value: pending.shift()!, done: false });
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: () => {
      closed = true;
      stopListening();
      waiting?.({ value: undefined, done: true });
      waiting = null;
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
