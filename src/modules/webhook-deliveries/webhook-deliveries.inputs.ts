import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const listWebhookDeliveriesSchema = listQuerySchema({
  endpoint_id: z.string().min(1).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.string().min(1).optional(),
});

