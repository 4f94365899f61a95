import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { resendWebhookEvent, sendTestWebhook } from "../webhook-deliveries/webhook-deliveries.service.ts";
import { webhookDeliveryJson, webhookDeliveryJsonSchema } from "../webhook-deliveries/webhook-deliveries.view.ts";
import {
  createWebhookEndpointSchema,
  listWebhookEndpointsSchema,
  resendEventSchema,
  updateWebhookEndpointSchema,
} from "./webhook-endpoints.inputs.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from "./webhook-endpoints.service.ts";
import { listWebhookEndpoints } from "./webhook-endpoints.store.ts";
import { deletedWebhookEndpointJsonSchema, webhookEndpointJson, webhookEndpointJsonSchema } from "./webhook-endpoints.view.ts";

export const webhookEndpointRoutes: Route[] = [
  defineRoute({
    method: "POST",
    needs: "developer",
    path: "/webhook-endpoints",
    operationId: "createWebhookEndpoint",
    summary: "Create a webhook endpoint; its signing secret is shown in full only in this answer",
    revealsSecret: true,
    body: createWebhookEndpointSchema,
    status: 201,
    response: webhookEndpointJsonSchema,
    async handler({ ctx, body }) {
      const { endpoint, secret } = await createWebhookEndpoint(ctx, body);
      return webhookEndpointJson(endpoint, secret);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/webhook-endpoints",
    operationId: "listWebhookEndpoints",
    summary: "List webhook endpoints, newest first",
    query: listWebhookEndpointsSchema,
    response: listPageJsonSchema("webhook_endpoints", webhookEndpointJsonSchema),
    async handler({ ctx, query }) {
      const page = await listWebhookEndpoints(ctx, {}, pageOfQuery(query));
      return { webhook_endpoints: page.items.map((e) => webhookEndpointJson(e)), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/webhook-endpoints/:id",
    operationId: "getWebhookEndpoint",
    summary: "Get a webhook endpoint (its secret masked)",
    response: webhookEndpointJsonSchema,
    async handler({ ctx, params }) {
      return webhookEndpointJson(await getWebhookEndpoint(ctx, params.id));
    },
  }),
  defineRoute({
    method: "POST",
    needs: "developer",
    path: "/webhook-endpoints/:id",
    operationId: "updateWebhookEndpoint",
    summary: "Update a webhook endpoint: the fields given change",
    body: updateWebhookEndpointSchema,
    response: webhookEndpointJsonSchema,
    async handler({ ctx, params, body }) {
      return webhookEndpointJson(await updateWebhookEndpoint(ctx, params.id, body));
    },
  }),
  defineRoute({
    method: "DELETE",
    needs: "developer",
    path: "/webhook-endpoints/:id",
    operationId: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint",
    response: deletedWebhookEndpointJsonSchema,
    async handler({ ctx, params }) {
      const endpoint = await deleteWebhookEndpoint(ctx, params.id);
      return { id: endpoint.id, object: "webhook_endpoint", deleted: true } as const;
    },
  }),
  defineRoute({
    method: "POST",
    needs: "developer",
    path: "/webhook-endpoints/:id/rotate-secret",
    operationId: "rotateWebhookEndpointSecret",
    summary: "Issue a new signing secret, shown in full only in this answer; the previous one also signs for 24 hours",
    bodyless: true,
    revealsSecret: true,
    response: webhookEndpointJsonSchema,
    async handler({ ctx, params }) {
      const { endpoint, secret } = await rotateWebhookEndpointSecret(ctx, params.id);
      return webhookEndpointJson(endpoint, secret);
    },
  }),
  defineRoute({
    method: "POST",
    needs: "developer",
    path: "/webhook-endpoints/:id/test",
    operationId: "sendTestWebhook",
    summary: "Send a webhook.test event to this endpoint",
    bodyless: true,
    response: webhookDeliveryJsonSchema,
    async handler({ ctx, params }) {
      return webhookDeliveryJson(await sendTestWebhook(ctx, params.id));
    },
  }),
  defineRoute({
    method: "POST",
    needs: "developer",
    path: "/webhook-endpoints/:id/resend",
    operationId: "resendWebhookEvent",
    summary:
      "Send an event to this endpoint now: a manual attempt of its delivery (the automatic schedule is unchanged), or a new delivery if the endpoint, live and subscribed to the kind, never had it",
    body: resendEventSchema,
    response: webhookDeliveryJsonSchema,
    errors: { 409: "The endpoint is disabled or does not subscribe to the event's kind, or the delivery is being sent right now" },
    async handler({ ctx, params, body }) {
      return webhookDeliveryJson(await resendWebhookEvent(ctx, body.event_id, params.id));
    },
  }),
];
