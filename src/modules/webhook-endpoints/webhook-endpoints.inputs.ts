import { z } from "zod";
import { EVENT_KINDS } from "../events/event-kinds.ts";
import { listQuerySchema } from "../../shared/pagination.ts";
import { descriptionSchema, idInputSchema } from "../../shared/validation.ts";

const urlSchema = z
  .string()
  .max(2048)
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), { error: "must be an http or https URL" })
  .meta({ override: { format: "uri", pattern: "^https?://" } });

/** A list of event kinds, or ["*"] for all of them (a kind given twice counts once). */
const enabledEventsSchema = z
  .array(z.enum([...EVENT_KINDS, "*"]))
  .min(1)
  .max(EVENT_KINDS.length)
  .refine((kinds) => !kinds.includes("*") || kinds.length === 1, { error: 'must be ["*"] or a list of event kinds' })
  .transform((kinds) => [...new Set(kinds)]);

export const createWebhookEndpointSchema = z.strictObject({
  url: urlSchema,
  enabled_events: enabledEventsSchema,
  description: descriptionSchema.optional(),
});

/** An update changes the fields it names. */
export const updateWebhookEndpointSchema = z.strictObject({
  url: urlSchema.optional(),
  enabled_events: enabledEventsSchema.optional(),
  description: descriptionSchema.optional(),
  enabled: z.boolean().optional(),
});

export type CreateWebhookEndpointInput = z.output<typeof createWebhookEndpointSchema>;
export type UpdateWebhookEndpointInput = z.output<typeof updateWebhookEndpointSchema>;

export const listWebhookEndpointsSchema = listQuerySchema({});

/** Resend: the event to send again (POST /webhook-endpoints/{id}/resend). */
export const resendEventSchema = z.strictObject({
  event_id: idInputSchema.min(1),
});
