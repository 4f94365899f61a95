import type { DeliveryWithAttempts } from "./webhook-deliveries.service.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function webhookDeliveryJson(d: DeliveryWithAttempts) {
  return {
    id: d.id,
    object: "webhook_delivery",
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event: d.eventType,
    status: d.status,
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
    })),
  };
}
