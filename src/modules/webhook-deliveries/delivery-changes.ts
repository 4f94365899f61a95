// Live delivery log, the announcing side: the webhook worker announces each delivery it recorded,
// after the commit; so do Retry now, Resend and Send test event. Announcements reach the open logs
// of the process; a worker in another process (PostgreSQL, several processes) is not heard directly: on PostgreSQL the worker also NOTIFYs at its commit, and each process with an open
// log LISTENs (below, and webhook-deliveries.live.ts, the subscription).
import { randomUUID } from "node:crypto";
import type { Statement } from "../../db/direct-sql.ts";

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

// ---- between processes (PostgreSQL): the worker's NOTIFY, delivered at its commit to every process

/** The channel the worker notifies after recording attempts; each process's open logs LISTEN to it. */
export const DELIVERY_CHANGES_CHANNEL = "stellar_pay_delivery_changes";

/** A database client's mark on its notices: its own changes were announced already, in process. */
const marks = new WeakMap<object, string>();
function markOf(db: object): string {
  const mark = marks.get(db) ?? randomUUID();
  marks.set(db, mark);
  return mark;
}

/** Deliveries per notice: PostgreSQL caps a payload below 8,000 bytes. */
const PER_NOTICE = 60;

/** Batch steps that NOTIFY the other processes of these changes, at the commit of the batch they join. */
export function deliveryChangeNotices(db: object, schema: string, changed: ChangedDelivery[]): Statement[] {
  const notices: Statement[] = [];
  for (let from = 0; from < changed.length; from += PER_NOTICE) {
    const rows = changed.slice(from, from + PER_NOTICE).map((d) => [d.id, d.organizationId, d.environment, d.endpointId]);
    notices.push({ text: "SELECT pg_notify($1, $2)", params: [DELIVERY_CHANGES_CHANNEL, JSON.stringify({ schema, from: markOf(db), rows })] });
  }
  return notices;
}

/** Announces in this process the changes another process (another database client) notified for this schema. */
export function announceNotice(db: object, schema: string, payload: string): void {
  let notice: { schema?: unknown; from?: unknown; rows?: unknown };
  try {
    notice = JSON.parse(payload);
  } catch {
    return;
  }
  if (notice.schema !== schema || notice.from === markOf(db) || !Array.isArray(notice.rows)) return;
  const changed = (notice.rows as string[][]).map(([id, organizationId, environment, endpointId]) => ({
    id: String(id),
    organizationId: String(organizationId),
    environment: String(environment),
    endpointId: String(endpointId),
  }));
  announceDeliveryChanges(db, changed);
}
