// The outbox. Every state change calls recordEvent inside the transaction that makes the change,
// so an event exists exactly when its change committed. Workers (webhooks, live updates) read it.
import type { Deps } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import type { EventType } from "./event-kinds.ts";
import { type EventRow, insertEventInTransaction } from "./events.store.ts";

/**
 * The outbox row of an event, for callers that write it in a batch transaction (a create writes it
 * with insertEventUnlessUntakenStatement, which marks it fanned out when no endpoint takes it).
 */
export function eventRow(
  deps: Pick<Deps, "clock" | "ids">,
  scope: { organizationId: string; environment: string },
  event: { type: EventType; resourceId: string; data: unknown },
): EventRow {
  const createdAt = deps.clock.now();
  return {
    id: deps.ids.newId("evt"),
    organizationId: scope.organizationId,
    environment: scope.environment,
    type: event.type,
    resourceId: event.resourceId,
    data: JSON.stringify(event.data),
    createdAt,
    fannedOutAt: null,
  };
}

export async function recordEvent(
  tx: Tx,
  deps: Pick<Deps, "clock" | "ids">,
  scope: { organizationId: string; environment: string },
  event: { type: EventType; resourceId: string; data: unknown },
) {
  return insertEventInTransaction(tx, eventRow(deps, scope, event));
}
