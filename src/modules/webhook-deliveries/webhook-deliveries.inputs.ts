import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";
import { idInputSchema } from "../../shared/validation.ts";

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const listWebhookDeliveriesSchema = listQuerySchema({
  endpoint_id: idInputSchema.min(1).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  // A string, not the enum: an unknown kind finds no delivery, as it always has.
  event: z.string().min(1).max(64).optional(),
});

