// The Checkout session JSON (object "checkout.session"), for REST and outbox events alike.
import { z } from "zod";
import type { CheckoutSession, Payment } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { amountJsonSchema, assetRefJsonSchema, metadataJsonSchema, timestampJsonSchema } from "../../shared/json-schemas.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";
import { PAYMENT_STATUSES, type PaymentStatus } from "../payments/payments.inputs.ts";
import { CHECKOUT_SESSION_STATUSES, type CheckoutSessionStatus } from "./checkout-sessions.inputs.ts";

export type CheckoutSessionWithPayment = CheckoutSession & { payment: Payment };

export const checkoutSessionUrl = (publicUrl: string, id: string) => `${publicUrl}/c/${id}`;

export const checkoutSessionJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix cs_" }),
    object: z.literal("checkout.session"),
    status: z.enum(CHECKOUT_SESSION_STATUSES),
    checkout_url: z.url().meta({ description: "the hosted checkout page, /c/<session id>" }),
    created_at: timestampJsonSchema,
    payment_intent_id: z.string().meta({ description: "the session's payment" }),
    amount: amountJsonSchema,
    settlement_asset: assetRefJsonSchema,
    allowed_assets: z.array(assetRefJsonSchema),
    paid_asset: assetRefJsonSchema.nullable(),
    payment_status: z.enum(PAYMENT_STATUSES),
    customer_id: z.string().nullable(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    expires_at: timestampJsonSchema,
    metadata: metadataJsonSchema,
    payment_link_id: z.string().nullable().meta({ description: "the payment link whose visit opened it, if any" }),
  })
  .meta({ id: "CheckoutSession", description: "A hosted checkout for one payment" });

export type CheckoutSessionJson = z.infer<typeof checkoutSessionJsonSchema>;

export function checkoutSessionJson(s: CheckoutSessionWithPayment, publicUrl: string): CheckoutSessionJson {
  const p = s.payment;
  return {
    id: s.id,
    object: "checkout.session",
    status: s.status as CheckoutSessionStatus,
    checkout_url: checkoutSessionUrl(publicUrl, s.id),
    created_at: s.createdAt.toISOString(),
    payment_intent_id: p.id,
    amount: formatStroops(p.amount),
    settlement_asset: assetRef({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer }),
    allowed_assets: parseAssetList(p.allowedAssets).map(assetRef),
    paid_asset: p.paidAssetCode ? assetRef({ code: p.paidAssetCode, issuer: p.paidAssetIssuer }) : null,
    payment_status: p.status as PaymentStatus,
    customer_id: s.customerId,
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
    expires_at: s.expiresAt.toISOString(),
    // Extensions: the session's own metadata and the link that started it, if any.
    metadata: deserializeMetadata(s.metadata),
    payment_link_id: s.paymentLinkId,
  };
}
