// Live refunds, the watching side: the claim page follows its one refund (public, by id), the
// dashboard's Refunds list and refund detail follow the refunds of their organization and
// environment. Both hear each refund's outbox events (created, succeeded, failed, canceled; read
// from the committed outbox through the app's one event feed, checkout.live.ts) and the moves that
// write none (claimed, submitted, back to signing: refund-changes.ts), read the refund again as it
// is, and push it: no polling, and a payer's claim on one host reaches a dashboard open on another.
import type { AppDeps, Scope } from "../../context.ts";
import type { Refund } from "../../generated/sqlite/client.ts";
import { notFound } from "../../errors.ts";
import { liveUpdatesFor } from "../checkout/checkout.live.ts";
import { CREDENTIAL_REVOKED, sharedCredentialWatch } from "../events/changes.live.ts";
import { refundChanges } from "./refund-changes.ts";
import { refundById } from "./refunds.store.ts";

type Watched = { id: string; organizationId: string; environment: string };

/**
 * Pushes `refund`s as they are after each move of one that `wanted` takes, read one after another
 * so a screen sees a refund's states in order; with `first`, that refund as it is now first.
 */
async function followRefunds<T>(
  deps: AppDeps,
  wanted: (refund: Watched) => boolean,
  options: { first?: string; onRevoked?: (end: (last: T) => void) => () => void; map?: (refund: Refund) => T | null },
): Promise<AsyncIterableIterator<T>> {
  const pending: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let closed = false;
  let reading = Promise.resolve();
  const map = options.map ?? ((refund: Refund) => refund as unknown as T);
  const push = (value: T) => {
    if (closed) return;
    if (waiting) waiting({ value, done: false });
    else pending.push(value);
    waiting = null;
  };
  const read = (id: string) => {
    reading = reading
      .then(async () => {
        const refund = await refundById(deps.db, id);
        const value = refund && wanted(refund) ? map(refund) : null;
        if (value !== null) push(value);
      })
      .catch((error) => deps.logger.error("live refund update failed", { error, id }));
  };
  const heard = (change: Watched) => {
    if (wanted(change)) read(change.id);
  };
  // Listening first, reading second: a move committed in between is in one or the other.
  const stopEvents = await liveUpdatesFor(deps).feed.listen((event) => {
    if (event.type.startsWith("refund.")) heard({ id: event.resourceId, organizationId: event.organizationId, environment: event.environment });
  });
  let stopChanges = () => {};
  try {
    stopChanges = await refundChanges.listen(deps, (changed) => changed.forEach(heard));
  } catch (error) {
    stopEvents();
    throw error;
  }
  let stopRevocations = () => {};
  /** Stops listening and ends the stream, after `last` if given (what was not taken yet is dropped for it). */
  const close = (...last: [T] | []) => {
    if (closed) return;
    if (last.length) {
      pending.length = 0;
      push(last[0]);
    }
    closed = true;
    stopEvents();
    stopChanges();
    stopRevocations();
    waiting?.({ value: undefined, done: true });
    waiting = null;
  };
  if (options.onRevoked) stopRevocations = options.onRevoked((last) => close(last));
  if (options.first !== undefined) {
    const refund = await refundById(deps.db, options.first);
    if (!refund || !wanted(refund)) {
      close();
      throw notFound();
    }
    const value = map(refund);
    if (value !== null) push(value);
  }
  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      if (pending.length) return Promise.resolve({ value: pending.shift()!, done: false });
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: () => {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** The claim page: the refund `id` now, then after every move of it; throws Not found for an unknown id. */
export function watchRefund(deps: AppDeps, id: string): Promise<AsyncIterableIterator<Refund>> {
  return followRefunds<Refund>(deps, (refund) => refund.id === id, { first: id });
}

/**
 * The dashboard: the refunds of the caller's organization and environment (only `id`, if given,
 * which is pushed as it is first) after each of their moves. Ends with UNAUTHENTICATED within about
 * a second of the credential's revocation, as the other dashboard streams do.
 */
export function watchRefundChanges(deps: AppDeps, scope: Scope, id: string | null): Promise<AsyncIterableIterator<Refund | typeof CREDENTIAL_REVOKED>> {
  const credentials = sharedCredentialWatch(deps);
  const inScope = (refund: Watched) => refund.organizationId === scope.organizationId && refund.environment === scope.environment && (id === null || refund.id === id);
  return followRefunds<Refund | typeof CREDENTIAL_REVOKED>(deps, inScope, {
    ...(id !== null && { first: id }),
    onRevoked: (end) => credentials.watch(scope, () => end(CREDENTIAL_REVOKED)),
  });
}
