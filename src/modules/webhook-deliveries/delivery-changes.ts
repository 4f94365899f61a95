// Live delivery log, the announcing side: the webhook worker announces each delivery it recorded,
// after the commit; so do Retry now, Resend and Send test event. Announcements stay in the process:
// on SQLite (one process) and wherever the worker runs in the API's process (the default) every
// change reaches every open log; a worker in another process (PostgreSQL, several processes) is not
// heard (README, Webhooks). The subscription is webhook-deliveries.live.ts.

export interface ChangedDelivery {
  id: string;
  organizationId: string;
  environment: string;
  endpointId: string;
}

export type DeliveryChangeListener = (changed: ChangedDelivery[]) => void;

// Keyed by the database client, as the outbox's live hub is: the worker and both GraphQL doors may
// carry different deps objects around the same client.
const listeners = new WeakMap<object, Set<DeliveryChangeListener>>();

/** Tells this process's open delivery logs that these deliveries changed (call after the commit). */
export function announceDeliveryChanges(db: object, changed: ChangedDelivery[]): void {
  if (changed.length === 0) return;
  for (const listener of listeners.get(db) ?? []) listener(changed);
}

/** Hears the changes announced for `db`; returns what stops it. */
export function listenToDeliveryChanges(db: object, listener: DeliveryChangeListener): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => void set.delete(listener);
}
