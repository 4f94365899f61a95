import type { WebhookEndpoint } from "../../generated/sqlite/client.ts";
import { maskSecret } from "../../webhooks/secret-box.ts";
import { subscribedEvents } from "./webhook-endpoints.service.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** `secret` is the full secret only when given (create, rotate); otherwise its masked preview. */
export function webhookEndpointJson(e: WebhookEndpoint, fullSecret?: string) {
  return {
    id: e.id,
    object: "webhook_endpoint",
    url: e.url,
    description: e.description,
    enabled_events: subscribedEvents(e),
    enabled: e.enabled,
    secret: fullSecret ?? maskSecret(e.secret),
    previous_secret_expires_at: iso(e.previousSecretExpiresAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
