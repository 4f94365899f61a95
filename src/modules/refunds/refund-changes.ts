// Live refunds, the announcing side, for the moves that write no outbox event: the payer's claim, a
// submission, and a transaction the network refused (back to signing). Each is announced after its
// commit to this process's open screens and, on PostgreSQL, NOTIFYed at the commit to the other
// processes: the payer's claim may reach another host than the merchant's open dashboard. The other
// moves (created, succeeded, failed, canceled) reach the screens as their outbox events
// (refunds.live.ts listens to both).
import { randomUUID } from "node:crypto";
import type { Deps } from "../../context.ts";
import { postgresSchema } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import type { Refund } from "../../generated/sqlite/client.ts";
import type { Logger } from "../../shared/logger.ts";
import { type PostgresListener, listenForNotifications } from "../events/events.feed.ts";

/** A refund that moved: enough to tell whose screens care. */
export type ChangedRefund = Pick<Refund, "id" | "organizationId" | "environment">;
export type RefundChangeListener = (changed: ChangedRefund) => void;

const REFUND_CHANGES_CHANNEL = "stellar_pay_refund_changes";

// Keyed by the database client, as the outbox's live hub is: both GraphQL doors may carry different
// deps objects around the same client.
const listeners = new WeakMap<object, Set<RefundChangeListener>>();
/** A database client's mark on its notices: its own changes were announced already, in process. */
const marks = new WeakMap<object, string>();

function markOf(db: object): string {
  const mark = marks.get(db) ?? randomUUID();
  marks.set(db, mark);
  return mark;
}

/** Tells this process's open screens that `refund` moved (call after the commit). */
export function announceRefundChange(db: object, refund: ChangedRefund): void {
  for (const listener of listeners.get(db) ?? []) listener(refund);
}

/** The batch step that NOTIFYs the other processes of `refund`'s move at the commit of its batch (none on SQLite: one process). */
export function refundChangeNotice(deps: Pick<Deps, "db" | "config">, refund: ChangedRefund): Statement[] {
  if (deps.config.dialect !== "postgresql") return [];
  const payload = { schema: postgresSchema(deps.config.databaseUrl), from: markOf(deps.db), id: refund.id, organizationId: refund.organizationId, environment: refund.environment };
  return [{ text: "SELECT pg_notify($1, $2)", params: [REFUND_CHANGES_CHANNEL, JSON.stringify(payload)] }];
}

/** On PostgreSQL, one LISTEN connection per database client while any screen listens. */
const notices = new WeakMap<object, { open: number; listening: Promise<PostgresListener> }>();

function hearOtherProcesses(deps: Deps & { logger: Logger }): { ready: Promise<unknown>; stop(): void } {
  if (deps.config.dialect !== "postgresql") return { ready: Promise.resolve(), stop: () => {} };
  const schema = postgresSchema(deps.config.databaseUrl);
  let shared = notices.get(deps.db);
  if (!shared) {
    const onPayload = (payload: string) => {
      let notice: Record<string, unknown>;
      try {
        notice = JSON.parse(payload);
      } catch {
        return;
      }
      if (notice.schema !== schema || notice.from === markOf(deps.db)) return;
      announceRefundChange(deps.db, { id: String(notice.id), organizationId: String(notice.organizationId), environment: String(notice.environment) });
    };
    const listening = listenForNotifications(deps, REFUND_CHANGES_CHANNEL, { onPayload });
    notices.set(deps.db, (shared = { open: 0, listening }));
    listening.catch(() => notices.get(deps.db) === shared && notices.delete(deps.db));
  }
  const mine = shared;
  mine.open++;
  return {
    ready: mine.listening,
    stop() {
      if (--mine.open > 0) return;
      if (notices.get(deps.db) === mine) notices.delete(deps.db);
      void mine.listening.then((listener) => listener.close());
    },
  };
}

/**
 * Hears every refund move announced here or notified by another process; resolves once listening
 * (a move committed after that is heard). Returns what stops it.
 */
export async function listenToRefundChanges(deps: Deps & { logger: Logger }, listener: RefundChangeListener): Promise<() => void> {
  let set = listeners.get(deps.db);
  if (!set) listeners.set(deps.db, (set = new Set()));
  set.add(listener);
  const others = hearOtherProcesses(deps);
  const stop = () => {
    set.delete(listener);
    others.stop();
  };
  try {
    await others.ready;
  } catch (error) {
    stop();
    throw error;
  }
  return stop;
}
