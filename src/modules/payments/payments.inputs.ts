import { z } from "zod";
import type { JsonSchema } from "../../shared/json-schemas.ts";
import { isStellarAddress } from "../../shared/assets.ts";
import { AMOUNT_PATTERN, AMOUNT_PATTERN_TEXT, MAX_AMOUNT, MAX_STROOPS, toStroops } from "../../shared/money.ts";
import { listQuerySchema } from "../../shared/pagination.ts";
import {
  MAX_AMOUNT_TEXT_LENGTH,
  STELLAR_ADDRESS_JSON_SCHEMA,
  allowedAssetsSchema,
  amountSchema,
  assetCodeSchema,
  assetRefSchema,
  descriptionSchema,
  idInputSchema,
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
  .refine((v) => toStroops(v) <= MAX_STROOPS, { error: `must be at most ${MAX_AMOUNT}` })
  .max(MAX_AMOUNT_TEXT_LENGTH);

/** How long a payment (and a checkout session) waits for its payer when the request does not say. */
export const DEFAULT_EXPIRY_MINUTES = 60;
export const expiresInMinutesSchema = z.number().int().min(5).max(10080).optional().meta({ default: DEFAULT_EXPIRY_MINUTES, format: "int32" });

/**
 * The create-payment body. The rules between fields (checked by the refinement below) are declared
 * in the OpenAPI document as two exclusive forms each, every branch with its own properties so that
 * generated clients type them: `amount` alone, or the pricing pair (with `amount` or without); and
 * `asset` (the quickstart form), or `settlement_asset`, or neither.
 */
export const createPaymentSchema = z
  .strictObject({
    amount: amountSchema.optional(),
    pricing_currency: z.string().regex(/^[A-Z]{3}$/, { error: "must be an ISO 4217 code (3 uppercase letters)" }).max(3).optional(),
    pricing_amount: pricingAmountSchema.optional(),
    settlement_asset: assetRefSchema.optional(),
    /** quickstart form: an enabled asset named by its code */
    asset: assetCodeSchema.optional().meta({ description: "quickstart form: an enabled asset's code, instead of settlement_asset" }),
    allowed_assets: allowedAssetsSchema.optional(),
    description: descriptionSchema.optional(),
    metadata: metadataSchema.optional(),
    expires_in_minutes: expiresInMinutesSchema,
    customer_id: idInputSchema.nullable().optional(),
  })
  // No component id: openapi-typescript makes a property with a default required, except in a request
  // body written in place, where it stays optional as the server has it.
  .meta({
    override: ({ jsonSchema }) => {
      const { amount, pricing_currency, pricing_amount, asset } = jsonSchema.properties as Record<"amount" | "pricing_currency" | "pricing_amount" | "asset", JsonSchema>;
      jsonSchema.dependentRequired = { pricing_currency: ["pricing_amount"], pricing_amount: ["pricing_currency"] };
      jsonSchema.allOf = [
        {
          oneOf: [
            { properties: { amount, pricing_currency: false, pricing_amount: false }, required: ["amount"] },
            { properties: { pricing_currency, pricing_amount }, required: ["pricing_currency", "pricing_amount"] },
          ],
        },
        { oneOf: [{ properties: { asset, settlement_asset: false }, required: ["asset"] }, { properties: { asset: false } }] },
      ];
    },
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
  customer_id: idInputSchema.min(1).optional(),
});

/** POST /payments/{id}/complete: an optional record of how it was paid. */
export const completePaymentSchema = z.strictObject({
  tx_hash: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be a Stellar transaction hash (64 lowercase hex digits)" }).max(64).nullable().optional(),
  payer_address: z
    .string()
    .refine(isStellarAddress, { error: "must be a Stellar public key (G...)" })
    .meta({ override: { ...STELLAR_ADDRESS_JSON_SCHEMA } })
    .nullable()
    .optional(),
});

/** GraphQL's manual completion: REST's body and why a person marks it completed (kept on the payment). */
export const manualCompletionSchema = completePaymentSchema.extend({
  reason: z.string().trim().min(1, { error: "must not be empty" }).max(500, { error: "must be at most 500 characters" }).nullable().optional(),
});

export type ManualCompletionInput = z.output<typeof manualCompletionSchema>;
