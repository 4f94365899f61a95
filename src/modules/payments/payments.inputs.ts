import { z } from "zod";
import { isStellarAddress } from "../../shared/assets.ts";
import { AMOUNT_PATTERN, AMOUNT_PATTERN_TEXT, MAX_AMOUNT, MAX_STROOPS, toStroops } from "../../shared/money.ts";
import { listQuerySchema } from "../../shared/pagination.ts";
import {
  amountSchema,
  assetCodeSchema,
  assetRefSchema,
  descriptionSchema,
  metadataSchema,
} from "../../shared/validation.ts";

export const PAYMENT_STATUSES = ["pending", "completed", "failed", "expired"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const SOURCE_TYPES = ["direct", "checkout_session", "payment_link", "invoice"] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** A positive decimal with up to 7 places, as a string (the merchant's display price), bounded as amounts are. */
const pricingAmountSchema = z
  .string()
  // abort: the checks below read the text as a decimal
  .regex(AMOUNT_PATTERN, { error: `must match ${AMOUNT_PATTERN_TEXT}`, abort: true })
  .refine((v) => !/^[0.]+$/.test(v), { error: "must be greater than 0" })
  .refine((v) => toStroops(v) <= MAX_STROOPS, { error: `must be at most ${MAX_AMOUNT}` });

export const createPaymentSchema = z
  .strictObject({
    amount: amountSchema.optional(),
    pricing_currency: z.string().regex(/^[A-Z]{3}$/, { error: "must be an ISO 4217 code (3 uppercase letters)" }).optional(),
    pricing_amount: pricingAmountSchema.optional(),
    settlement_asset: assetRefSchema.optional(),
    /** quickstart form: an enabled asset named by its code */
    asset: assetCodeSchema.optional(),
    allowed_assets: z.array(assetRefSchema).min(1).optional(),
    description: descriptionSchema.optional(),
    metadata: metadataSchema.optional(),
    expires_in_minutes: z.number().int().min(5).max(10080).optional(),
    customer_id: z.string().nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.pricing_currency !== undefined && body.pricing_amount === undefined) {
      ctx.addIssue({ code: "custom", path: ["pricing_amount"], message: "is required with pricing_currency" });
    } else if (body.pricing_amount !== undefined && body.pricing_currency === undefined) {
      ctx.addIssue({ code: "custom", path: ["pricing_currency"], message: "is required with pricing_amount" });
    } else if (body.amount === undefined && body.pricing_amount === undefined) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: "is required" });
    }
    if (body.asset !== undefined && body.settlement_asset !== undefined) {
      ctx.addIssue({ code: "custom", path: ["asset"], message: "cannot be given with settlement_asset" });
    }
  });

export type CreatePaymentInput = z.output<typeof createPaymentSchema>;

export const listPaymentsSchema = listQuerySchema({
  status: z.enum(PAYMENT_STATUSES).optional(),
  customer_id: z.string().min(1).optional(),
});

/** POST /payments/{id}/complete: an optional record of how it was paid. */
export const completePaymentSchema = z.strictObject({
  tx_hash: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be a Stellar transaction hash (64 lowercase hex digits)" }).nullable().optional(),
  payer_address: z
    .string()
    .refine(isStellarAddress, { error: "must be a Stellar public key (G...)" })
    .nullable()
    .optional(),
});

/** GraphQL's manual completion: REST's body and why a person marks it completed (kept on the payment). */
export const manualCompletionSchema = completePaymentSchema.extend({
  reason: z.string().trim().min(1, { error: "must not be empty" }).max(500, { error: "must be at most 500 characters" }).nullable().optional(),
});

export type ManualCompletionInput = z.output<typeof manualCompletionSchema>;
