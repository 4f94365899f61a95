// The Webhook delivery JSON (object "webhook_delivery"): the delivery log of one event to one endpoint.
import { z } from "zod";
import { timestampJsonSchema } from "../../shared/json-schemas.ts";
import { DELIVERY_STATUSES, type DeliveryStatus } from "./webhook-deliveries.inputs.ts";
import type { DeliveryWithAttempts } from "./webhook-deliveries.store.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const webhookAttemptJsonSchema = z
  .object({
    number: z.int().min(1),
    started_at: timestampJsonSchema,
    duration_ms: z.int().min(0),
    response_code: z.int().nullable(),
    response_body: z.string().nullable(),
    error: z.string().nullable(),
    manual: z.boolean().meta({ description: "asked for by hand (retry, resend): not counted by the automatic schedule" }),
  })
  .meta({ id: "WebhookAttempt" });

export const webhookDeliveryJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix whd_; sent as Service-Delivery-ID" }),
    object: z.literal("webhook_delivery"),
    endpoint_id: z.string(),
    event_id: z.string(),
    event: z.string().meta({ description: "the event kind" }),
    status: z.enum(DELIVERY_STATUSES),
    response_code: z.int().nullable(),
    attempt_count: z.int().min(0),
    next_retry_at: timestampJsonSchema.nullable(),
    request_payload: z.string().meta({ description: "the JSON body sent, as text" }),
    response_body: z.string().nullable(),
    last_error: z.string().nullable(),
    created_at: timestampJsonSchema,
    attempts: z.array(webhookAttemptJsonSchema),
  })
  .meta({ id: "WebhookDelivery" });

export type WebhookDeliveryJson = z.infer<typeof webhookDeliveryJsonSchema>;

export function webhookDeliveryJson(d: DeliveryWithAttempts): WebhookDeliveryJson {
  return {
    id: d.id,
    object: "webhook_delivery",
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event: d.eventType,
    status: d.status as DeliveryStatus,
    response_code: d.responseCode,
    attempt_count: d.attemptCount,
    next_retry_at: iso(d.nextRetryAt),
    request_payload: d.requestPayload,
    response_body: d.responseBody,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    attempts: d.attempts.map((a) => ({
      number: a.number,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      response_code: a.responseCode,
      response_body: a.responseBody,
      error: a.error,
      manual: a.manual,
    })),
  };
}
