// The spec's Payment JSON (object "payment_intent"), built in one place for REST and webhooks.
import { z } from "zod";
import type { Payment } from "../../generated/sqlite/client.ts";
import type { EventType } from "../events/event-kinds.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { amountJsonSchema, assetRefJsonSchema, metadataJsonSchema, timestampJsonSchema } from "../../shared/json-schemas.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";
import { paymentInstructions, paymentInstructionsJsonSchema } from "./payment-instructions.ts";
import { PAYMENT_STATUSES, type PaymentStatus, SOURCE_TYPES, type SourceType } from "./payments.inputs.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const checkoutUrl = (publicUrl: string, id: string) => `${publicUrl}/c/${id}`;

export const paymentJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix pay_" }),
    object: z.literal("payment_intent"),
    amount: amountJsonSchema,
    settlement_asset: assetRefJsonSchema,
    allowed_assets: z.array(assetRefJsonSchema),
    paid_asset: assetRefJsonSchema.nullable().meta({ description: "the asset the payer paid with, once paid" }),
    status: z.enum(PAYMENT_STATUSES),
    description: z.string().nullable(),
    metadata: metadataJsonSchema,
    checkout_url: z.url().meta({ description: "the hosted checkout page, /c/<payment id>" }),
    source_type: z.enum(SOURCE_TYPES),
    customer_id: z.string().nullable(),
    payer_address: z.string().nullable(),
    tx_hash: z.string().nullable().meta({ description: "the Stellar transaction hash, once completed" }),
    confirmed_at: timestampJsonSchema.nullable(),
    expires_at: timestampJsonSchema.nullable(),
    created_at: timestampJsonSchema,
    amount_received: amountJsonSchema.meta({ description: "what arrived on the ledger so far (partial payments, overpayment)" }),
    amount_refunded: amountJsonSchema.meta({ description: "what refunds sent back (those that succeeded)" }),
    late: z.boolean().meta({ description: "completed by a payment that arrived after it expired" }),
    failure_reason: z.string().nullable(),
    pricing_currency: z.string().nullable().meta({ description: "ISO 4217 code of the display price" }),
    pricing_amount: z.string().nullable().meta({ description: "the display price in pricing_currency" }),
    payment_instructions: paymentInstructionsJsonSchema,
  })
  .meta({ id: "Payment", description: "A payment intent" });

export type PaymentJson = z.infer<typeof paymentJsonSchema>;

export function paymentJson(p: Payment, publicUrl: string): PaymentJson {
  return {
    id: p.id,
    object: "payment_intent",
    amount: formatStroops(p.amount),
    settlement_asset: assetRef({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer }),
    allowed_assets: parseAssetList(p.allowedAssets).map(assetRef),
    paid_asset: p.paidAssetCode ? assetRef({ code: p.paidAssetCode, issuer: p.paidAssetIssuer }) : null,
    status: p.status as PaymentStatus,
    description: p.description,
    metadata: deserializeMetadata(p.metadata),
    checkout_url: checkoutUrl(publicUrl, p.id),
    source_type: p.sourceType as SourceType,
    customer_id: p.customerId,
    payer_address: p.payerAddress,
    tx_hash: p.txHash,
    confirmed_at: iso(p.confirmedAt),
    expires_at: iso(p.expiresAt),
    created_at: p.createdAt.toISOString(),
    // Extensions (decisions.md): what actually arrived, late completion, the display price.
    amount_received: formatStroops(p.amountReceived),
    amount_refunded: formatStroops(p.amountRefunded),
    late: p.late,
    failure_reason: p.failureReason,
    pricing_currency: p.pricingCurrency,
    pricing_amount: p.pricingAmount,
    // How to pay it on the ledger: destination, muxed address, memo, SEP-7 URI.
    payment_instructions: paymentInstructions(p),
  };
}

export type PaymentEventType = Extract<EventType, `payment.${string}`>;

/**
 * The event of a payment's move, whoever moves it (creation, the ledger, manual completion, a failed
 * attempt, expiry, voiding its invoice): its data is the payment as the API shows it after the move.
 * webhook.test carries a sample payment the same way.
 */
export function paymentEvent(payment: Payment, type: PaymentEventType | "webhook.test", publicUrl: string) {
  return { type, resourceId: payment.id, data: paymentJson(payment, publicUrl) };
}
