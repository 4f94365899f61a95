import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";
import { allowedAssetsSchema, amountSchema, assetRefSchema, descriptionSchema, idInputSchema, metadataSchema } from "../../shared/validation.ts";
import { expiresInMinutesSchema } from "../payments/payments.inputs.ts";

export const CHECKOUT_SESSION_STATUSES = ["open", "complete", "expired"] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/** Where the payer is sent after paying or giving up: only http(s) URLs. */
const redirectUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2048)
  .meta({ override: { pattern: "^https?://" } })
  .nullable()
  .optional();

export const createCheckoutSessionSchema = z.strictObject({
  amount: amountSchema,
  settlement_asset: assetRefSchema.optional(),
  allowed_assets: allowedAssetsSchema.optional(),
  description: descriptionSchema.optional(),
  success_url: redirectUrlSchema,
  cancel_url: redirectUrlSchema,
  customer_id: idInputSchema.nullable().optional(),
  metadata: metadataSchema.optional(),
  expires_in_minutes: expiresInMinutesSchema,
});

export type CreateCheckoutSessionInput = z.output<typeof createCheckoutSessionSchema>;

export const listCheckoutSessionsSchema = listQuerySchema({
  status: z.enum(CHECKOUT_SESSION_STATUSES).optional(),
  customer_id: idInputSchema.min(1).optional(),
});
