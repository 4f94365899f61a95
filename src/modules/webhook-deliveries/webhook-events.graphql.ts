// The Events screen's door: every event of the caller's scope with its deliveries, and Resend.
import { builder, needs } from "../../graphql/builder.ts";
import { listConnection, withSelectedRelations } from "../../graphql/connection.ts";
import { requireService } from "../../graphql/context.ts";
import { deliveryBody } from "../../webhooks/delivery-body.ts";
import { listEvents } from "../events/events.store.ts";
import { resendWebhookEvent } from "./webhook-deliveries.service.ts";

const WebhookEventType = builder.prismaObject("Event", {
  name: "WebhookEvent",
  description: "an event of the outbox, as webhooks send it",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "the event kind" }),
    resourceId: t.exposeString("resourceId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    payload: t.string({ description: "the JSON body its deliveries send", resolve: (event) => deliveryBody(event) }),
    deliveries: t.relation("deliveries", { query: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } }),
  }),
});

builder.queryFields((t) => ({
  webhookEvents: t.connection({
    type: WebhookEventType,
    description: "the scope's events, newest first, of one kind if `type` is given",
    args: { type: t.arg.string() },
    resolve: (_root, args, ctx, info) => {
      const service = requireService(ctx);
      const withRelations = withSelectedRelations(ctx, info, (ids, query) =>
        service.db.event.findMany({ ...query, where: { id: { in: ids } } }),
      );
      return listConnection(args, (page) => listEvents(service.db, service.scope, { type: args.type || null }, page).then(withRelations), (e) => e.id);
    },
  }),
}));

builder.mutationFields((t) => ({
  resendWebhookEvent: t.prismaField({
    ...needs("developer"),
    type: "WebhookDelivery",
    description:
      "sends the event to the endpoint now: a manual attempt of its delivery, or a new delivery if the endpoint (live, subscribed to the kind) never had it; the automatic schedule is unchanged",
    args: { eventId: t.arg.id({ required: true }), endpointId: t.arg.id({ required: true }) },
    resolve: async (_query, _root, { eventId, endpointId }, ctx) => resendWebhookEvent(requireService(ctx), String(eventId), String(endpointId)),
  }),
}));
