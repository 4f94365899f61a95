import { needs, builder } from "../../graphql/builder.ts";
import type { GraphQLResolveInfo } from "graphql";
import { type ConnectionArgs, listConnection, withSelectedRelations } from "../../graphql/connection.ts";
import { type GraphQLContext, requireService } from "../../graphql/context.ts";
import { unlessRevoked } from "../events/changes.live.ts";
import { watchDeliveryChanges } from "./webhook-deliveries.live.ts";
import { DELIVERY_STATUSES, type DeliveryStatus } from "./webhook-deliveries.inputs.ts";
import { getWebhookDelivery, retryWebhookDelivery, sendTestWebhook } from "./webhook-deliveries.service.ts";
import { type WebhookDeliveryFilters, listWebhookDeliveries, webhookDeliveriesIncluding } from "./webhook-deliveries.store.ts";

const DeliveryStatusEnum = builder.enumType("WebhookDeliveryStatus", { values: DELIVERY_STATUSES });

builder.prismaObject("WebhookAttempt", {
  fields: (t) => ({
    number: t.exposeInt("number"),
    startedAt: t.expose("startedAt", { type: "DateTime" }),
    durationMs: t.exposeInt("durationMs"),
    responseCode: t.exposeInt("responseCode", { nullable: true }),
    responseBody: t.exposeString("responseBody", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
    manual: t.exposeBoolean("manual", { description: "asked for by hand (Retry now, Resend): not counted by the automatic schedule" }),
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

/** A connection of deliveries (Query.webhookDeliveries, WebhookEndpoint.deliveries): a page of the delivery log. */
export function webhookDeliveryConnection(ctx: GraphQLContext, info: GraphQLResolveInfo, args: ConnectionArgs, filters: WebhookDeliveryFilters) {
  const service = requireService(ctx);
  const withRelations = withSelectedRelations(ctx, info, (ids, query) => webhookDeliveriesIncluding(service, ids, query));
  return listConnection(args, (page) => listWebhookDeliveries(service, filters, page).then(withRelations), (d) => d.id);
}

builder.queryFields((t) => ({
  webhookDelivery: t.prismaField({
    type: "WebhookDelivery",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, args, ctx) => getWebhookDelivery(requireService(ctx), String(args.id)),
  }),
  webhookDeliveries: t.connection({
    type: WebhookDeliveryType,
    args: { endpointId: t.arg.string(), status: t.arg({ type: DeliveryStatusEnum }), event: t.arg.string() },
    resolve: (_root, args, ctx, info) =>
      webhookDeliveryConnection(ctx, info, args, { endpointId: args.endpointId || null, status: args.status, event: args.event || null }),
  }),
}));

builder.mutationFields((t) => ({
  retryWebhookDelivery: t.prismaField({
    ...needs("developer"),
    type: "WebhookDelivery",
    description:
      "Retry now: one manual attempt, sent at once; the automatic schedule (next time, count) is unchanged, and requests made together make one attempt",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, { id }, ctx) => retryWebhookDelivery(requireService(ctx), String(id)),
  }),
  sendTestWebhook: t.prismaField({
    ...needs("developer"),
    type: "WebhookDelivery",
    description: "sends a webhook.test event (sample payment, metadata service_test = \"true\") to this endpoint",
    args: { endpointId: t.arg.id({ required: true }) },
    resolve: async (_query, _root, { endpointId }, ctx) => sendTestWebhook(requireService(ctx), String(endpointId)),
  }),
}));

builder.subscriptionFields((t) => ({
  webhookDeliveryChanges: t.field({
    type: WebhookDeliveryType,
    description:
      "The live delivery log: each delivery of the caller's scope (of `endpointId` if given) as it is after each change (an attempt recorded, Retry now, Resend, a test event). Ends with UNAUTHENTICATED when the credential is revoked",
    args: { endpointId: t.arg.id() },
    subscribe: (_root, args, ctx) => watchDeliveryChanges(ctx.deps, requireService(ctx).scope, args.endpointId ? String(args.endpointId) : null),
    resolve: unlessRevoked,
  }),
}));
