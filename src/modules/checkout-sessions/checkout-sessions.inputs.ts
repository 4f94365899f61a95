import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";
import { amountSchema, assetRefSchema, descriptionSchema, metadataSchema } from "../../shared/validation.ts";

export const CHECKOUT_SESSION_STATUSES = ["open", "complete", "expired"] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/** Where the payer is sent after paying or giving up: only http(s) URLs. */
const redirectUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2048)
  .nullable()
  .optional();

export const createCheckoutSessionSchema = z.strictObject({
  amount: amountSchema,
  settlement_asset: assetRefSchema.optional(),
  allowed_assets: z.array(assetRefSchema).min(1).optional(),
  description: descriptionSchema.optional(),
  success_url: redirectUrlSchema,
  cancel_url: redirectUrlSchema,
  customer_id: z.string().nullable().optional(),
  metadata: metadataSchema.optional(),
  expires_in_minutes: z.number().int().min(5).max(10080).optional(),
});

export type CreateCheckoutSessionInput = z.output<typeof createCheckoutSessionSchema>;

export const listCheckoutSessionsSchema = listQuerySchema({
  status: z.enum(CHECKOUT_SESSION_STATUSES).optional(),
  customer_id: z.string().min(1).optional(),
});
