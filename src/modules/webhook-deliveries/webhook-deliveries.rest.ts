import { type Route, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { listWebhookDeliveriesSchema } from "./webhook-deliveries.inputs.ts";
import { getWebhookDelivery, listWebhookDeliveries, retryWebhookDelivery } from "./webhook-deliveries.service.ts";
import { webhookDeliveryJson } from "./webhook-deliveries.view.ts";

export const webhookDeliveryRoutes: Route[] = [
  {
    method: "GET",
    path: "/webhook-deliveries",
    async handler({ ctx, query }) {
      const page = await listWebhookDeliveries(ctx, parseInput(listWebhookDeliveriesSchema, query, "query"));
      return ok({ webhook_deliveries: page.items.map(webhookDeliveryJson), has_more: page.hasMore });
    },
  },
  {
    method: "GET",
    path: "/webhook-deliveries/:id",
    async handler({ ctx, params }) {
      return ok(webhookDeliveryJson(await getWebhookDelivery(ctx, params.id!)));
    },
  },
  {
    method: "POST",
    path: "/webhook-deliveries/:id/retry",
    bodyless: true,
    async handler({ ctx, params }) {
      return ok(webhookDeliveryJson(await retryWebhookDelivery(ctx, params.id!)));
    },
  },
];
