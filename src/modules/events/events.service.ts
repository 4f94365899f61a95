// The outbox. Every state change calls recordEvent inside the transaction that makes the change,
// so an event exists exactly when its change committed. Workers (webhooks, live updates) read it.
import type { Deps } from "../../context.ts";
import type { Tx } from "../../db/client.ts";
import { type EventType, takesEvent } from "./event-kinds.ts";
import { type EventRow, insertEventInTransaction } from "./events.store.ts";

/**
 * The outbox row of an event, for callers that write it in a batch transaction. A caller that read
 * the environment's webhook endpoints for this write gives their `webhookSubscriptions`: an event
 * that none of them takes is written as fanned out already, and the webhook worker has nothing to
 * do for it. (An endpoint receives the events created after it; one created during this write may
 * miss this event, as one created a moment after it would.)
 */
export function eventRow(
  deps: Pick<Deps, "clock" | "ids">,
  scope: { organizationId: string; environment: string },
  event: { type: EventType; resourceId: string; data: unknown },
  webhookSubscriptions?: string[][],
): EventRow {
  const createdAt = deps.clock.now();
  const unsubscribed = webhookSubscriptions?.every((kinds) => !takesEvent(kinds, event.type)) ?? false;
  return {
    id: deps.ids.newId("evt"),
    organizationId: scope.organizationId,
    environment: scope.environment,
    type: event.type,
    resourceId: event.resourceId,
    data: JSON.stringify(event.data),
    createdAt,
    fannedOutAt: unsubscribed ? createdAt : null,
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
