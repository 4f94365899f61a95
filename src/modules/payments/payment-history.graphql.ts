// GraphQL: what happened to a payment, for the dashboard's detail: its events from the outbox (the
// timeline) and the webhook deliveries of those events, each leading to its endpoint's delivery log.
import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { eventsOfResource } from "../events/events.store.ts";
import { WebhookDeliveryType } from "../webhook-deliveries/webhook-deliveries.graphql.ts";
import { deliveriesOfResource } from "../webhook-deliveries/webhook-deliveries.store.ts";
import { PaymentType } from "./payments.graphql.ts";

const TimelineEventType = builder.objectRef<{ id: string; type: string; createdAt: Date }>("PaymentTimelineEvent").implement({
  description: "one event of a payment's timeline",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "the event kind, e.g. payment.completed" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.objectFields(PaymentType, (t) => ({
  events: t.field({
    type: [TimelineEventType],
    description: "the payment's events, oldest first",
    resolve: (payment, _args, ctx) => {
      const { db, scope } = requireService(ctx);
      return eventsOfResource(db, scope, payment.id);
    },
  }),
  webhookDeliveries: t.field({
    type: [WebhookDeliveryType],
    description: "the webhook deliveries of the payment's events, in the order of its events",
    resolve: (payment, _args, ctx) => {
      const { db, scope } = requireService(ctx);
      return deliveriesOfResource(db, scope, payment.id);
    },
  }),
}));
