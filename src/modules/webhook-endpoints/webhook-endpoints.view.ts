// The Webhook endpoint JSON (object "webhook_endpoint").
import { z } from "zod";
import type { WebhookEndpoint } from "../../generated/sqlite/client.ts";
import { timestampJsonSchema } from "../../shared/json-schemas.ts";
import { maskSecret } from "../../webhooks/secret-box.ts";
import { EVENT_KINDS } from "../events/event-kinds.ts";
import { subscribedEvents } from "./webhook-endpoints.service.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const webhookEndpointJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix we_" }),
    object: z.literal("webhook_endpoint"),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.enum([...EVENT_KINDS, "*"])).meta({ description: 'event kinds, or ["*"] for all' }),
    enabled: z.boolean(),
    secret: z.string().meta({
      description: "the signing secret (whsec_...) in full when created or rotated; a masked preview otherwise",
    }),
    previous_secret_expires_at: timestampJsonSchema
      .nullable()
      .meta({ description: "after a rotation, until when the previous secret also signs" }),
    created_at: timestampJsonSchema,
    updated_at: timestampJsonSchema,
  })
  .meta({ id: "WebhookEndpoint" });

export type WebhookEndpointJson = z.infer<typeof webhookEndpointJsonSchema>;

export const deletedWebhookEndpointJsonSchema = z
  .object({ id: z.string(), object: z.literal("webhook_endpoint"), deleted: z.literal(true) })
  .meta({ id: "DeletedWebhookEndpoint" });

/** `secret` is the full secret only when given (create, rotate); otherwise its masked preview. */
export function webhookEndpointJson(e: WebhookEndpoint, fullSecret?: string): WebhookEndpointJson {
  return {
    id: e.id,
    object: "webhook_endpoint",
    url: e.url,
    description: e.description,
    enabled_events: subscribedEvents(e) as WebhookEndpointJson["enabled_events"],
    enabled: e.enabled,
    secret: fullSecret ?? maskSecret(e.secret),
    previous_secret_expires_at: iso(e.previousSecretExpiresAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
