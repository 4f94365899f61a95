// The outbox. Every state change calls recordEvent inside the transaction that makes the change,
// so an event exists exactly when its change committed. Workers (webhooks, live updates) read it.
import type { Deps } from "../../context.ts";
import type { Tx } from "../../db/client.ts";

export type EventType =
  | "payment.created"
  | "payment.completed"
  | "payment.failed"
  | "payment.expired"
  | "invoice.finalized"
  | "invoice.paid"
  | "invoice.voided"
  | "checkout.session.completed"
  | "checkout.session.expired"
  | "webhook.test";

/** The outbox row of an event, for callers that write it in a batch transaction. */
export function eventRow(
  deps: Pick<Deps, "clock" | "ids">,
  scope: { organizationId: string; environment: string },
  event: { type: EventType; resourceId: string; data: unknown },
) {
  return {
    id: deps.ids.newId("evt"),
    organizationId: scope.organizationId,
    environment: scope.environment,
    type: event.type,
    resourceId: event.resourceId,
    data: JSON.stringify(event.data),
    createdAt: deps.clock.now(),
  };
}

export async function recordEvent(
  tx: Tx,
  deps: Pick<Deps, "clock" | "ids">,
  scope: { organizationId: string; environment: string },
  event: { type: EventType; resourceId: string; data: unknown },
) {
  return tx.event.create({ data: eventRow(deps, scope, event) });
}
