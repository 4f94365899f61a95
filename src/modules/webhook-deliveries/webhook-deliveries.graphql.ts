import { builder } from "../../graphql/builder.ts";
import { listConnection } from "../../graphql/connection.ts";
import { requireService } from "../../graphql/context.ts";
import { DELIVERY_STATUSES, type DeliveryStatus } from "./webhook-deliveries.inputs.ts";
import { getWebhookDelivery, retryWebhookDelivery, sendTestWebhook } from "./webhook-deliveries.service.ts";
import { listWebhookDeliveries } from "./webhook-deliveries.store.ts";

const DeliveryStatusEnum = builder.enumType("WebhookDeliveryStatus", { values: DELIVERY_STATUSES });

builder.prismaObject("WebhookAttempt", {
  fields: (t) => ({
    number: t.exposeInt("number"),
    startedAt: t.expose("startedAt", { type: "DateTime" }),
    durationMs: t.exposeInt("durationMs"),
    responseCode: t.exposeInt("responseCode", { nullable: true }),
    responseBody: t.exposeString("responseBody", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
  }),
});

export const WebhookDeliveryType = builder.prismaObject("WebhookDelivery", {
  fields: (t) => ({
    id: t.exposeID("id"),
    endpointId: t.exposeString("endpointId"),
    endpoint: t.relation("endpoint"),
    eventId: t.exposeString("eventId"),
    event: t.exposeString("eventType", { description: "the event kind" }),
    status: t.field({ type: DeliveryStatusEnum, resolve: (d) => d.status as DeliveryStatus }),
    responseCode: t.exposeInt("responseCode", { nullable: true }),
    attemptCount: t.exposeInt("attemptCount"),
    nextRetryAt: t.expose("nextRetryAt", { type: "DateTime", nullable: true }),
    requestPayload: t.exposeString("requestPayload", { description: "the exact JSON body sent" }),
    responseBody: t.exposeString("responseBody", { nullable: true, description: "the first 4 KiB of the last answer" }),
    lastError: t.exposeString("lastError", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    attempts: t.relation("attempts", { query: { orderBy: { number: "asc" } } }),
  }),
});

builder.queryFields((t) => ({
  webhookDelivery: t.prismaField({
    type: "WebhookDelivery",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, args, ctx) => getWebhookDelivery(requireService(ctx), String(args.id)),
  }),
  webhookDeliveries: t.connection({
    type: WebhookDeliveryType,
    args: { endpointId: t.arg.string(), status: t.arg({ type: DeliveryStatusEnum }), event: t.arg.string() },
    resolve: (_root, args, ctx) =>
      listConnection(
        args,
        (page) => listWebhookDeliveries(requireService(ctx), { endpointId: args.endpointId || null, status: args.status, event: args.event || null }, page),
        (d) => d.id,
      ),
  }),
}));

builder.mutationFields((t) => ({
  retryWebhookDelivery: t.prismaField({
    type: "WebhookDelivery",
    description: "makes the delivery due now; the dispatcher sends it at once",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, { id }, ctx) => retryWebhookDelivery(requireService(ctx), String(id)),
  }),
  sendTestWebhook: t.prismaField({
    type: "WebhookDelivery",
    description: "sends a webhook.test event (sample payment, metadata service_test = \"true\") to this endpoint",
    args: { endpointId: t.arg.id({ required: true }) },
    resolve: async (_query, _root, { endpointId }, ctx) => sendTestWebhook(requireService(ctx), String(endpointId)),
  }),
}));
