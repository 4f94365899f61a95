// The live delivery log's subscription (Subscription.webhookDeliveryChanges): the deliveries that
// delivery-changes.ts announces, of the caller's scope (of one endpoint if asked), read again as they are now.
import type { Deps, Scope } from "../../context.ts";
import type { Logger } from "../../shared/logger.ts";
import { CREDENTIAL_REVOKED, watchChanges } from "../events/changes.live.ts";
import { deliveryChanges } from "./delivery-changes.ts";
import { type DeliveryWithAttempts, findWebhookDelivery } from "./webhook-deliveries.store.ts";

/** The caller's deliveries (of `endpointId` if given) as each changes; ends with CREDENTIAL_REVOKED at the credential's revocation. */
export function watchDeliveryChanges(
  deps: Deps & { logger: Logger },
  scope: Scope,
  endpointId: string | null,
): Promise<AsyncIterableIterator<DeliveryWithAttempts | typeof CREDENTIAL_REVOKED>> {
  return watchChanges(
    deps,
    scope,
    deliveryChanges,
    (row) => endpointId === null || row.endpointId === endpointId,
    (id) => findWebhookDelivery(deps.db, scope, id),
  );
}
