// The Checkout session JSON (object "checkout.session"), for REST and outbox events alike.
import type { CheckoutSession, Payment } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";

export type CheckoutSessionWithPayment = CheckoutSession & { payment: Payment };

export const checkoutSessionUrl = (publicUrl: string, id: string) => `${publicUrl}/c/${id}`;

export function checkoutSessionJson(s: CheckoutSessionWithPayment, publicUrl: string) {
  const p = s.payment;
  return {
    id: s.id,
    object: "checkout.session",
    status: s.status,
    checkout_url: checkoutSessionUrl(publicUrl, s.id),
    created_at: s.createdAt.toISOString(),
    payment_intent_id: p.id,
    amount: formatStroops(p.amount),
    settlement_asset: assetRef({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer }),
    allowed_assets: parseAssetList(p.allowedAssets).map(assetRef),
    paid_asset: p.paidAssetCode ? assetRef({ code: p.paidAssetCode, issuer: p.paidAssetIssuer }) : null,
    payment_status: p.status,
    customer_id: s.customerId,
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
    expires_at: s.expiresAt.toISOString(),
    // Extensions: the session's own metadata and the link that started it, if any.
    metadata: deserializeMetadata(s.metadata),
    payment_link_id: s.paymentLinkId,
  };
}
