// The delivery log (one row per event and endpoint, with its attempts), manual retries and test
// events. Sending itself is the dispatcher's (src/webhooks/dispatcher.ts).
import type { Prisma } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope } from "../../context.ts";
import { conflict, notFound } from "../../errors.ts";
import { deliveryBody } from "../../webhooks/delivery-body.ts";
import { recordEvent } from "../events/events.service.ts";
import { getWebhookEndpoint } from "../webhook-endpoints/webhook-endpoints.service.ts";
import type { DeliveryStatus } from "./webhook-deliveries.inputs.ts";
import type { DeliveryWithAttempts } from "./webhook-deliveries.store.ts";

const withAttempts = { attempts: { orderBy: { number: "asc" } } } satisfies Prisma.WebhookDeliveryInclude;

export async function getWebhookDelivery(ctx: ServiceContext, id: string): Promise<DeliveryWithAttempts> {
  const delivery = await ctx.db.webhookDelivery.findFirst({ where: { id, ...inScope(ctx.scope) }, include: withAttempts });
  if (!delivery) throw notFound();
  return delivery;
}

/**
 * Makes a delivery due now (a failed one becomes pending again for one more attempt). Refused while
 * a worker holds it: that attempt's result is about to be recorded.
 */
export async function retryWebhookDelivery(ctx: ServiceContext, id: string): Promise<DeliveryWithAttempts> {
  await getWebhookDelivery(ctx, id);
  const now = ctx.clock.now();
  const { count } = await ctx.db.webhookDelivery.updateMany({
    where: { id, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    data: { status: "pending" satisfies DeliveryStatus, nextRetryAt: now, leaseUntil: null, updatedAt: now },
  });
  if (count === 0) throw conflict("Delivery is being sent right now");
  return getWebhookDelivery(ctx, id);
}

/** Sample payment data for webhook.test, marked by metadata service_test = "true". */
function samplePayment(ctx: ServiceContext, now: Date) {
  const id = ctx.ids.newId("pay");
  return {
    id,
    object: "payment_intent",
    amount: "10.0000000",
    settlement_asset: { asset_code: "XLM", issuer_address: null },
    allowed_assets: [{ asset_code: "XLM", issuer_address: null }],
    paid_asset: { asset_code: "XLM", issuer_address: null },
    status: "completed",
    description: "Test webhook",
    metadata: { service_test: "true" },
    checkout_url: `${ctx.config.publicUrl}/c/${id}`,
    source_type: "direct",
    customer_id: null,
    payer_address: null,
    tx_hash: null,
    confirmed_at: now.toISOString(),
    expires_at: null,
    created_at: now.toISOString(),
    amount_received: "10.0000000",
    late: false,
    failure_reason: null,
    pricing_currency: "USD",
    pricing_amount: "1.0000000",
  };
}

/**
 * A webhook.test event delivered to this one endpoint only (whatever it subscribes to), logged like
 * live deliveries. The event is born fanned out, so no other endpoint receives it.
 */
export async function sendTestWebhook(ctx: ServiceContext, endpointId: string): Promise<DeliveryWithAttempts> {
  const endpoint = await getWebhookEndpoint(ctx, endpointId);
  const now = ctx.clock.now();
  const data = samplePayment(ctx, now);
  const delivery = await ctx.db.$transaction(async (tx) => {
    const event = await recordEvent(tx, ctx, ctx.scope, { type: "webhook.test", resourceId: data.id, data });
    await tx.event.update({ where: { id: event.id }, data: { fannedOutAt: now } });
    return tx.webhookDelivery.create({
      data: {
        id: ctx.ids.newId("whd"),
        ...inScope(ctx.scope),
        endpointId: endpoint.id,
        eventId: event.id,
        eventType: event.type,
        status: "pending" satisfies DeliveryStatus,
        nextRetryAt: now,
        requestPayload: deliveryBody(event),
        createdAt: now,
        updatedAt: now,
      },
    });
  });
  return { ...delivery, attempts: [] };
}
