import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { listWebhookDeliveriesSchema } from "./webhook-deliveries.inputs.ts";
import { getWebhookDelivery, retryWebhookDelivery } from "./webhook-deliveries.service.ts";
import { listWebhookDeliveries } from "./webhook-deliveries.store.ts";
import { webhookDeliveryJson, webhookDeliveryJsonSchema } from "./webhook-deliveries.view.ts";

export const webhookDeliveryRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/webhook-deliveries",
    operationId: "listWebhookDeliveries",
    summary: "List webhook deliveries (the delivery log), newest first",
    query: listWebhookDeliveriesSchema,
    response: listPageJsonSchema("webhook_deliveries", webhookDeliveryJsonSchema),
    async handler({ ctx, query }) {
      const page = await listWebhookDeliveries(ctx, { endpointId: query.endpoint_id, status: query.status, event: query.event }, pageOfQuery(query));
      return { webhook_deliveries: page.items.map(webhookDeliveryJson), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/webhook-deliveries/:id",
    operationId: "getWebhookDelivery",
    summary: "Get a webhook delivery with its attempts",
    response: webhookDeliveryJsonSchema,
    async handler({ ctx, params }) {
      return webhookDeliveryJson(await getWebhookDelivery(ctx, params.id));
    },
  }),
  defineRoute({
    method: "POST",
    needs: "developer",
    path: "/webhook-deliveries/:id/retry",
    operationId: "retryWebhookDelivery",
    summary: "Send a delivery again now (a failed one gets one more attempt)",
    bodyless: true,
    response: webhookDeliveryJsonSchema,
    errors: { 409: "The delivery is being sent right now" },
    async handler({ ctx, params }) {
      return webhookDeliveryJson(await retryWebhookDelivery(ctx, params.id));
    },
  }),
];
