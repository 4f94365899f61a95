// Live delivery log: the dashboard's subscription to the deliveries of its scope. The webhook worker
// announces each delivery it recorded, after the commit; so do Retry now, Resend and Send test event.
// Announcements stay in the process: on SQLite (one process) and wherever the worker runs in the
// API's process (the default) every change reaches every screen; a worker in another process
// (PostgreSQL, several processes) is not heard here (README, Webhooks).
import type { Deps, Scope } from "../../context.ts";
import { unauthorized } from "../../errors.ts";
import { createCredentialWatch, type CredentialWatch } from "../../gate/credentials.ts";
import type { Logger } from "../../shared/logger.ts";
import { type DeliveryWithAttempts, findWebhookDelivery } from "./webhook-deliveries.store.ts";

export interface ChangedDelivery {
  id: string;
  organizationId: string;
  environment: string;
  endpointId: string;
}

type Listener = (changed: ChangedDelivery[]) => void;

interface Hub {
  listeners: Set<Listener>;
  credentials: CredentialWatch | null;
}

// Keyed by the database client, as the outbox's live hub is: the worker and both GraphQL doors may
// carry different deps objects around the same client.
const hubs = new WeakMap<object, Hub>();

function hubOf(db: object): Hub {
  let hub = hubs.get(db);
  if (!hub) hubs.set(db, (hub = { listeners: new Set(), credentials: null }));
  return hub;
}

/** Tells this process's open delivery logs that these deliveries changed (call after the commit). */
export function announceDeliveryChanges(db: object, changed: ChangedDelivery[]): void {
  const hub = hubs.get(db);
  if (!hub || changed.length === 0) return;
  for (const listener of hub.listeners) listener(changed);
}

/**
 * The caller's deliveries (of `endpointId` if given) as each changes, read again when it does.
 * Changes that come while one is read are taken together, once per delivery. Ends with
 * UNAUTHENTICATED within about a second of the credential's revocation, as other streams do.
 */
export function watchDeliveryChanges(
  deps: Deps & { logger: Logger },
  scope: Scope,
  endpointId: string | null,
): AsyncIterableIterator<DeliveryWithAttempts> {
  const hub = hubOf(deps.db);
  hub.credentials ??= createCredentialWatch(deps);
  const credentials = hub.credentials;
  const changed = new Set<string>();
  let waiting: (() => void) | null = null;
  let revoked = false;
  let closed = false;
  const wake = () => {
    waiting?.();
    waiting = null;
  };
  const listener: Listener = (rows) => {
    for (const row of rows) {
      if (row.organizationId !== scope.organizationId || row.environment !== scope.environment) continue;
      if (endpointId !== null && row.endpointId !== endpointId) continue;
      changed.add(row.id);
    }
    if (changed.size) wake();
  };
  hub.listeners.add(listener);
  const unwatch = credentials.watch(scope, () => {
    revoked = true;
    wake();
  });
  const close = () => {
    if (closed) return;
    closed = true;
    hub.listeners.delete(listener);
    unwatch();
    wake();
  };
  const ready: DeliveryWithAttempts[] = [];

  async function next(): Promise<IteratorResult<DeliveryWithAttempts>> {
    while (!closed) {
      if (revoked) {
        close();
        throw unauthorized();
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

  const iterator: AsyncIterableIterator<DeliveryWithAttempts> = {
    next,
    return: () => {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
