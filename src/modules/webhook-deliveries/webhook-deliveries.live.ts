// The live delivery log's subscription (Subscription.webhookDeliveryChanges): the deliveries that
// delivery-changes.ts announces, of the caller's scope, read again as they are now.
import type { Deps, Scope } from "../../context.ts";
import { type CredentialWatch, createCredentialWatch } from "../../gate/credentials.ts";
import type { Logger } from "../../shared/logger.ts";
import { postgresSchema } from "../../db/client.ts";
import { type PostgresListener, listenForNotifications } from "../events/events.feed.ts";
import { DELIVERY_CHANGES_CHANNEL, type DeliveryChangeListener, announceNotice, listenToDeliveryChanges } from "./delivery-changes.ts";
import { type DeliveryWithAttempts, findWebhookDelivery } from "./webhook-deliveries.store.ts";

/** What the stream hands out last when the credential was revoked: the field answers UNAUTHENTICATED. */
export const DELIVERIES_CREDENTIAL_REVOKED = Symbol("credential revoked");

// One credential watch per database client, shared by every open log (it reads once a second while any is open).
const watches = new WeakMap<object, CredentialWatch>();

/** On PostgreSQL, one LISTEN connection per database client while any log is open: other processes' workers. */
const notices = new WeakMap<object, { open: number; listening: Promise<PostgresListener> }>();

async function hearOtherProcesses(deps: Deps & { logger: Logger }): Promise<() => void> {
  if (deps.config.dialect !== "postgresql") return () => {};
  const schema = postgresSchema(deps.config.databaseUrl);
  let shared = notices.get(deps.db);
  if (!shared) {
    const listening = listenForNotifications(deps, DELIVERY_CHANGES_CHANNEL, { onPayload: (payload) => announceNotice(deps.db, schema, payload) });
    notices.set(deps.db, (shared = { open: 0, listening }));
    listening.catch(() => notices.get(deps.db) === shared && notices.delete(deps.db));
  }
  const mine = shared;
  mine.open++;
  await mine.listening;
  return () => {
    if (--mine.open > 0) return;
    if (notices.get(deps.db) === mine) notices.delete(deps.db);
    void mine.listening.then((listener) => listener.close());
  };
}

/**
 * The caller's deliveries (of `endpointId` if given) as each changes, read again when it does.
 * Changes that come while one is read are taken together, once per delivery. Ends with
 * UNAUTHENTICATED within about a second of the credential's revocation, as other streams do.
 */
export async function watchDeliveryChanges(
  deps: Deps & { logger: Logger },
  scope: Scope,
  endpointId: string | null,
): Promise<AsyncIterableIterator<DeliveryWithAttempts | typeof DELIVERIES_CREDENTIAL_REVOKED>> {
  // Listening before the stream starts: nothing committed after this is missed.
  const stopHearing = await hearOtherProcesses(deps);
  const credentials = watches.get(deps.db) ?? createCredentialWatch(deps);
  watches.set(deps.db, credentials);
  const changed = new Set<string>();
  let waiting: (() => void) | null = null;
  let revoked = false;
  let closed = false;
  const wake = () => {
    waiting?.();
    waiting = null;
  };
  const listener: DeliveryChangeListener = (rows) => {
    for (const row of rows) {
      if (row.organizationId !== scope.organizationId || row.environment !== scope.environment) continue;
      if (endpointId !== null && row.endpointId !== endpointId) continue;
      changed.add(row.id);
    }
    if (changed.size) wake();
  };
  const unlisten = listenToDeliveryChanges(deps.db, listener);
  const unwatch = credentials.watch(scope, () => {
    revoked = true;
    wake();
  });
  const close = () => {
    if (closed) return;
    closed = true;
    unlisten();
    unwatch();
    stopHearing();
    wake();
  };
  const ready: DeliveryWithAttempts[] = [];

  async function next(): Promise<IteratorResult<DeliveryWithAttempts | typeof DELIVERIES_CREDENTIAL_REVOKED>> {
    while (!closed) {
      if (revoked) {
        close();
        return { value: DELIVERIES_CREDENTIAL_REVOKED, done: false };
      }
      const item = ready.shift();
      if (item) return { value: item, done: false };
      if (changed.size === 0) {
        await new Promise<void>((resolve) => (waiting = resolve));
        continue;
      }
      const ids = [...changed];
      changed.clear();
      const since = performance.now();
      const rows = await Promise.all(ids.map((id) => findWebhookDelivery(deps.db, scope, id)));
      if (!(await credentials.stillValid(scope, since))) revoked = true;
      else for (const row of rows) if (row) ready.push(row);
    }
    return { value: undefined, done: true };
  }

  const iterator: AsyncIterableIterator<DeliveryWithAttempts | typeof DELIVERIES_CREDENTIAL_REVOKED> = {
    next,
    return: () => {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
