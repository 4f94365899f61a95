// Live updates for both audiences, fed only by the committed outbox (events.feed.ts):
// - checkout pages watch one public id; every event about a related resource (its payment, session,
//   invoice) reloads the public view once per id, however many pages watch it, and pushes it to each;
// - dashboards watch every payment event of their organization and environment.
// A watcher starts with the current state (or a replay from a seq), so it never misses a final status.
// Dashboard streams carry the caller's credential: each delivery is authorized again, and a revoked
// credential ends the stream at once (src/gate/credentials.ts).
import type { AppDeps } from "../../context.ts";
import { type ServiceContext, inScope, isInScope } from "../../context.ts";
import { createCredentialWatch } from "../../gate/credentials.ts";
import type { Payment } from "../../generated/sqlite/client.ts";
import { CREDENTIAL_REVOKED } from "../events/changes.live.ts";
import { type EventFeed, createEventFeed } from "../events/events.feed.ts";
import { type OutboxEvent, newestEventSeqIn, paymentEventsOfScopeAfter } from "../events/events.store.ts";
import { paymentById } from "../payments/payments.store.ts";
import { type CheckoutView, loadCheckout } from "./checkout.service.ts";

export interface PaymentEventPayload {
  seq: number;
  type: string;
  createdAt: Date;
  /** the payment as it is now */
  payment: Payment;
}


export interface LiveUpdates {
  /** Current view first, then every change; throws Not found for an unknown id. */
  watchCheckout(id: string): Promise<AsyncIterableIterator<CheckoutView>>;
  /** Payment events of the caller's organization and environment: those after `after` first, then new ones. */
  watchPaymentEvents(
    ctx: ServiceContext,
    after?: number | null,
  ): Promise<AsyncIterableIterator<PaymentEventPayload | typeof CREDENTIAL_REVOKED>>;
  feed: EventFeed;
  stop(): Promise<void>;
}

// Keyed by the database client: /graphql and /graphql/stream may carry different deps objects
// (spread with extras) but must share one hub and one outbox reader.
const hubs = new WeakMap<object, LiveUpdates>();

/** One hub per database client, shared by every door of the app. */
export function liveUpdatesFor(deps: AppDeps): LiveUpdates {
  let hub = hubs.get(deps.db);
  if (!hub) hubs.set(deps.db, (hub = createLiveUpdates(deps)));
  return hub;
}

export async function stopLiveUpdates(deps: AppDeps) {
  await hubs.get(deps.db)?.stop();
  hubs.delete(deps.db);
}

/** A push queue as an async iterator; `onClose` runs once when the consumer leaves. */
function createQueue<T>(onClose: () => void) {
  const values: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
    waiting?.({ value: undefined, done: true });
    waiting = null;
  };
  const iterator: AsyncIterableIterator<T> = {
    next: () => {
      if (values.length) return Promise.resolve({ value: values.shift()!, done: false });
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: () => {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  const push = (value: T) => {
    if (closed) return;
    if (waiting) {
      waiting({ value, done: false });
      waiting = null;
    } else values.push(value);
  };
  return {
    iterator,
    push,
    /** Drops what was not taken yet, hands out `last`, then ends. */
    end(last: T) {
      values.length = 0;
      push(last);
      close();
    },
  };
}

interface CheckoutChannel {
  id: string;
  watchers: Set<(view: CheckoutView) => void>;
  topics: string[];
  view: CheckoutView | null;
  json: string;
  /** the first read; rejects (Not found) for an unknown id */
  ready: Promise<void> | null;
  loading: Promise<void> | null;
  dirty: boolean;
}

function createLiveUpdates(deps: AppDeps): LiveUpdates {
  const feed = createEventFeed(deps);
  const credentials = createCredentialWatch(deps);
  const channels = new Map<string, CheckoutChannel>();
  const topics = new Map<string, Set<CheckoutChannel>>();
  const dashboards = new Set<(event: OutboxEvent) => void>();
  let listening: Promise<unknown> | null = null;
  let routed = 0;

  function route(event: OutboxEvent) {
    routed++;
    for (const channel of topics.get(event.resourceId) ?? []) refresh(channel);
    if (event.type.startsWith("payment.")) for (const dashboard of dashboards) dashboard(event);
  }

  async function ensureListening() {
    listening ??= feed.listen(route).catch((error) => {
      listening = null;
      throw error;
    });
    await listening;
  }

  function setTopics(channel: CheckoutChannel, ids: string[]) {
    for (const id of channel.topics) {
      const set = topics.get(id);
      set?.delete(channel);
      if (set?.size === 0) topics.delete(id);
    }
    channel.topics = ids;
    if (channels.get(channel.id) !== channel) return;
    for (const id of ids) {
      let set = topics.get(id);
      if (!set) topics.set(id, (set = new Set()));
      set.add(channel);
    }
  }

  function dropChannel(channel: CheckoutChannel) {
    setTopics(channel, []);
    channels.delete(channel.id);
  }

  /** Reloads a channel's view, one load at a time; changes are pushed to every watcher. */
  function refresh(channel: CheckoutChannel): Promise<void> {
    if (channel.loading) {
      channel.dirty = true;
      return channel.loading;
    }
    channel.loading = (async () => {
      do {
        channel.dirty = false;
        const view = await loadCheckout(deps, channel.id);
        const { relatedIds, ...visible } = view;
        const json = JSON.stringify(visible);
        if (json !== channel.json) {
          channel.view = view;
          channel.json = json;
          const ids = [channel.id, ...relatedIds];
          if (ids.join() !== channel.topics.join()) setTopics(channel, ids);
          for (const watcher of channel.watchers) watcher(view);
        }
      } while (channel.dirty);
    })()
      .catch((error) => deps.logger.error("live checkout update failed", { error, id: channel.id }))
      .finally(() => (channel.loading = null));
    return channel.loading;
  }

  async function watchCheckout(id: string): Promise<AsyncIterableIterator<CheckoutView>> {
    await ensureListening();
    let channel = channels.get(id);
    const joining = Boolean(channel);
    if (!channel) {
      channel = { id, watchers: new Set(), topics: [], view: null, json: "", ready: null, loading: null, dirty: false };
      channels.set(id, channel);
      setTopics(channel, [id]);
      channel.ready = loadFirstView(channel);
    }
    const current = channel;
    await current.ready;
    if (joining) {
      // The shared view may trail a commit the feed has not read yet: read the outbox now, and let
      // the reload it causes land, so the first frame is the committed state.
      await feed.poll();
      await current.loading;
      // Its last watcher may have left meanwhile, taking the channel down: join a fresh one.
      if (channels.get(id) !== current) return watchCheckout(id);
    }
    const queue = createQueue<CheckoutView>(() => {
      current.watchers.delete(queue.push);
      if (current.watchers.size === 0) dropChannel(current);
    });
    current.watchers.add(queue.push);
    // A load in flight pushes the newer state when it lands; the view held now is the latest known.
    queue.push(current.view!);
    return queue.iterator;
  }

  /** Read after the feed listens; an event routed during the read (maybe about a related id not yet known) reads again. */
  async function loadFirstView(channel: CheckoutChannel) {
    const before = routed;
    try {
      const view = await loadCheckout(deps, channel.id);
      const { relatedIds, ...visible } = view;
      channel.view = view;
      channel.json = JSON.stringify(visible);
      setTopics(channel, [channel.id, ...relatedIds]);
    } catch (error) {
      dropChannel(channel);
      throw error;
    }
    if (routed !== before) await refresh(channel);
  }

  async function watchPaymentEvents(ctx: ServiceContext, after?: number | null) {
    const scope = inScope(ctx.scope);
    // Without `after`, the stream starts at what is committed now: the shared feed may still hold
    // older events it has not handed out yet, and those are not this subscriber's.
    const from = after ?? (await newestEventSeqIn(ctx.db, scope));
    const matches = (e: OutboxEvent) =>
      e.seq > from && e.organizationId === scope.organizationId && e.environment === scope.environment;
    let chain = Promise.resolve();
    // Only while replaying: a live event may also be among the replayed rows.
    const delivered = new Set<number>();
    let buffered: OutboxEvent[] | null = [];
    const queue = createQueue<PaymentEventPayload | typeof CREDENTIAL_REVOKED>(() => {
      dashboards.delete(onEvent);
      unwatch();
    });
    const revoked = () => queue.end(CREDENTIAL_REVOKED);
    const unwatch = credentials.watch(ctx.scope, revoked);
    // Loads run one after another so payloads leave in the order their events were read. Each is
    // authorized by a credential check that started after everything it delivers was read (the
    // event, then its payment as it is now): what that check finds valid was not revoked when those
    // reads were made, so nothing committed after a revocation is delivered, the payment's later
    // changes included. A check made before the payment was read (the last sweep's, another
    // event's) is not reused.
    const deliver = (event: Pick<OutboxEvent, "seq" | "type" | "createdAt" | "resourceId">) => {
      if (delivered.has(event.seq)) return;
      if (buffered) delivered.add(event.seq);
      chain = chain.then(async () => {
        const payment = await paymentById(ctx.db, event.resourceId);
        if (!(await credentials.stillValid(ctx.scope, performance.now()))) return revoked();
        if (payment && isInScope(payment, ctx.scope)) queue.push({ seq: event.seq, type: event.type, createdAt: event.createdAt, payment });
      });
      chain = chain.catch((error) => deps.logger.error("live payment event failed", { error }));
    };
    const onEvent = (event: OutboxEvent) => {
      if (!matches(event)) return;
      if (buffered) buffered.push(event);
      else deliver(event);
    };
    dashboards.add(onEvent);
    try {
      await ensureListening();
      (await paymentEventsOfScopeAfter(ctx.db, scope, from, 1000)).forEach(deliver);
    } catch (error) {
      dashboards.delete(onEvent);
      unwatch();
      throw error;
    }
    const pending = buffered;
    buffered = null;
    pending.forEach(deliver);
    delivered.clear();
    return queue.iterator;
  }

  return {
    watchCheckout,
    watchPaymentEvents,
    feed,
    async stop() {
      credentials.stop();
      await feed.stop();
    },
  };
}
