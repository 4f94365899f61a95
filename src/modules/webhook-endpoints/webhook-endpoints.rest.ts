import { type Route, created, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { webhookDeliveryJson } from "../webhook-deliveries/webhook-deliveries.view.ts";
import { sendTestWebhook } from "../webhook-deliveries/webhook-deliveries.service.ts";
import {
  createWebhookEndpointSchema,
  listWebhookEndpointsSchema,
  updateWebhookEndpointSchema,
} from "./webhook-endpoints.inputs.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from "./webhook-endpoints.service.ts";
import { webhookEndpointJson } from "./webhook-endpoints.view.ts";

export const webhookEndpointRoutes: Route[] = [
  {
    method: "POST",
    path: "/webhook-endpoints",
    revealsSecret: true,
    async handler({ ctx, body }) {
      const { endpoint, secret } = await createWebhookEndpoint(ctx, parseInput(createWebhookEndpointSchema, body));
      return created(webhookEndpointJson(endpoint, secret));
    },
  },
  {
    method: "GET",
    path: "/webhook-endpoints",
    async handler({ ctx, query }) {
      const page = await listWebhookEndpoints(ctx, parseInput(listWebhookEndpointsSchema, query, "query"));
      return ok({ webhook_endpoints: page.items.map((e) => webhookEndpointJson(e)), has_more: page.hasMore });
    },
  },
  {
    method: "GET",
    path: "/webhook-endpoints/:id",
    async handler({ ctx, params }) {
      return ok(webhookEndpointJson(await getWebhookEndpoint(ctx, params.id!)));
    },
  },
  {
    method: "POST",
    path: "/webhook-endpoints/:id",
    async handler({ ctx, params, body }) {
      return ok(webhookEndpointJson(await updateWebhookEndpoint(ctx, params.id!, parseInput(updateWebhookEndpointSchema, body))));
    },
  },
  {
    method: "DELETE",
    path: "/webhook-endpoints/:id",
    async handler({ ctx, params }) {
      const endpoint = await deleteWebhookEndpoint(ctx, params.id!);
      return ok({ id: endpoint.id, object: "webhook_endpoint", deleted: true });
    },
  },
  {
    method: "POST",
    path: "/webhook-endpoints/:id/rotate-secret",
    bodyless: true,
    revealsSecret: true,
    async handler({ ctx, params }) {
      const { endpoint, secret } = await rotateWebhookEndpointSecret(ctx, params.id!);
      return ok(webhookEndpointJson(endpoint, secret));
    },
  },
  {
    method: "POST",
    path: "/webhook-endpoints/:id/test",
    bodyless: true,
    async handler({ ctx, params }) {
      return ok(webhookDeliveryJson(await sendTestWebhook(ctx, params.id!)));
    },
  },
];
