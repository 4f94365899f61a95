// The delivery log (one row per event and endpoint, with its attempts), manual retries and test
// events. Sending itself is the dispatcher's (src/webhooks/dispatcher.ts).
import type { Payment } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope } from "../../context.ts";
import { conflict, notFound } from "../../errors.ts";
import { XLM, serializeAssetList } from "../../shared/assets.ts";
import { networkPassphraseFor } from "../../shared/network.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import { deliveryBody } from "../../webhooks/delivery-body.ts";
import { eventRow } from "../events/events.service.ts";
import { insertEventInTransaction } from "../events/events.store.ts";
import { loadSettings } from "../organizations/organizations.service.ts";
import { paymentEvent } from "../payments/payments.view.ts";
import { deliveryChanges } from "./delivery-changes.ts";
import type { DeliveryStatus } from "./webhook-deliveries.inputs.ts";
import { takesEvent } from "../events/event-kinds.ts";
import { findEvent } from "../events/events.store.ts";
import { getWebhookEndpoint, isLive, subscribedEvents } from "../webhook-endpoints/webhook-endpoints.service.ts";
import {
  type DeliveryWithAttempts,
  askForManualAttempt,
  findDeliveryOf,
  findWebhookDelivery,
  insertDeliveryInTransaction,
} from "./webhook-deliveries.store.ts";

export async function getWebhookDelivery(ctx: ServiceContext, id: string): Promise<DeliveryWithAttempts> {
  const delivery = await findWebhookDelivery(ctx.db, ctx.scope, id);
  if (!delivery) throw notFound();
  return delivery;
}

/**
 * Retry now: one manual attempt, made by the worker at once (the write wakes it). It is pending until
 * made; the automatic schedule (its next time, its count) stays as it was. Requests made together
 * make one attempt in all: one already asked for and not yet made serves them. Refused while a
 * worker holds the delivery: that attempt's result is about to be recorded.
 */
export async function retryWebhookDelivery(ctx: ServiceContext, id: string): Promise<DeliveryWithAttempts> {
  await getWebhookDelivery(ctx, id);
  const now = ctx.clock.now();
  if (await askForManualAttempt(ctx.db, id, now)) return announced(ctx, await getWebhookDelivery(ctx, id));
  const current = await getWebhookDelivery(ctx, id);
  const held = current.leaseUntil !== null && current.leaseUntil > now;
  if (current.manualRetryAt !== null && !held) return current;
  throw conflict("Delivery is being sent right now");
}

/**
 * Resend: sends event `eventId` to endpoint `endpointId` now. An event the endpoint was given
 * already gets a manual attempt on its delivery (retryWebhookDelivery); otherwise the endpoint must
 * be live and subscribe to the event's kind, and a new delivery is made, due at once.
 */
export async function resendWebhookEvent(ctx: ServiceContext, eventId: string, endpointId: string): Promise<DeliveryWithAttempts> {
  const event = await findEvent(ctx.db, ctx.scope, eventId);
  if (!event) throw notFound("Event not found");
  const endpoint = await getWebhookEndpoint(ctx, endpointId);
  const existing = await findDeliveryOf(ctx.db, endpoint.id, event.id);
  if (existing) return retryWebhookDelivery(ctx, existing.id);
  if (!isLive(endpoint)) throw conflict("Endpoint is disabled");
  if (!takesEvent(subscribedEvents(endpoint), event.type)) throw conflict(`Endpoint does not subscribe to ${event.type}`);
  const now = ctx.clock.now();
  try {
    const delivery = await ctx.db.$transaction((tx) =>
      insertDeliveryInTransaction(tx, dueDeliveryRow(ctx, endpoint.id, event, now)),
    );
    return announced(ctx, { ...delivery, attempts: [] });
  } catch (error) {
    // Made meanwhile by another Resend (the pair is unique): that delivery is the one to send.
    const made = await findDeliveryOf(ctx.db, endpoint.id, event.id);
    if (!made) throw error;
    return getWebhookDelivery(ctx, made.id);
  }
}

/** A delivery of `event` to one endpoint, made by hand (Resend, Send test event): pending and due now. */
function dueDeliveryRow(ctx: ServiceContext, endpointId: string, event: Parameters<typeof deliveryBody>[0] & { id: string; type: string }, now: Date) {
  return {
    id: ctx.ids.newId("whd"),
    ...inScope(ctx.scope),
    endpointId,
    eventId: event.id,
    eventType: event.type,
    status: "pending" satisfies DeliveryStatus,
    nextRetryAt: now,
    requestPayload: deliveryBody(event),
    createdAt: now,
    updatedAt: now,
  };
}

/** Where a sample payment is paid when the environment has no settlement wallet yet: a valid address, nobody's wallet here. */
const SAMPLE_SETTLEMENT_ADDRESS = "GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7";

/**
 * A completed payment of 10 XLM (priced 1 USD) for webhook.test, marked by metadata service_test =
 * "true" and never stored. Its JSON is built like every payment's (paymentEvent), so a receiver
 * sees the fields live events have, payment_instructions included (to the environment's wallet).
 */
async function samplePayment(ctx: ServiceContext, now: Date): Promise<Payment> {
  const { settlementAddress } = await loadSettings(ctx, ctx.scope);
  const tenXlm = 100_000_000n;
  return {
    id: ctx.ids.newId("pay"),
    ...inScope(ctx.scope),
    amount: tenXlm,
    settlementAssetCode: XLM.code,
    settlementAssetIssuer: XLM.issuer,
    allowedAssets: serializeAssetList([XLM]),
    paidAssetCode: XLM.code,
    paidAssetIssuer: XLM.issuer,
    status: "completed",
    description: "Test webhook",
    metadata: serializeMetadata({ service_test: "true" }),
    sourceType: "direct",
    customerId: null,
    payerAddress: null,
    txHash: null,
    confirmedAt: now,
    expiresAt: null,
    pricingCurrency: "USD",
    pricingAmount: "1.0000000",
    amountReceived: tenXlm,
    amountRefunded: 0n,
    amountRefunding: 0n,
    late: false,
    settlementAddress: settlementAddress ?? SAMPLE_SETTLEMENT_ADDRESS,
    networkPassphrase: networkPassphraseFor(ctx.scope.environment),
    memoId: ctx.ids.newMemoId(),
    failureReason: null,
    manualCompletionReason: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * A webhook.test event delivered to this one endpoint only (whatever it subscribes to), logged like
 * live deliveries. The event is born fanned out, so no other endpoint receives it.
 */
export async function sendTestWebhook(ctx: ServiceContext, endpointId: string): Promise<DeliveryWithAttempts> {
  const endpoint = await getWebhookEndpoint(ctx, endpointId);
  const now = ctx.clock.now();
  const row = eventRow(ctx, ctx.scope, paymentEvent(await samplePayment(ctx, now), "webhook.test", ctx.config.publicUrl));
  // Born fanned out: the worker gives it to no endpoint; its one delivery is made here.
  const delivery = await ctx.db.$transaction(async (tx) => {
    const event = await insertEventInTransaction(tx, { ...row, fannedOutAt: row.createdAt });
    return insertDeliveryInTransaction(tx, dueDeliveryRow(ctx, endpoint.id, event, now));
  });
  return announced(ctx, { ...delivery, attempts: [] });
}

/** Other screens of the scope show the delivery's new state (pending, its attempt asked for) at once. */
function announced(ctx: ServiceContext, delivery: DeliveryWithAttempts): DeliveryWithAttempts {
  deliveryChanges.announce(ctx.db, [delivery]);
  return delivery;
}
