// The spec's Payment JSON (object "payment_intent"), built in one place for REST and webhooks.
import type { Payment } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";
import { paymentInstructions } from "./payment-instructions.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const checkoutUrl = (publicUrl: string, id: string) => `${publicUrl}/c/${id}`;

export function paymentJson(p: Payment, publicUrl: string) {
  return {
    id: p.id,
    object: "payment_intent",
    amount: formatStroops(p.amount),
    settlement_asset: assetRef({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer }),
    allowed_assets: parseAssetList(p.allowedAssets).map(assetRef),
    paid_asset: p.paidAssetCode ? assetRef({ code: p.paidAssetCode, issuer: p.paidAssetIssuer }) : null,
    status: p.status,
    description: p.description,
    metadata: deserializeMetadata(p.metadata),
    checkout_url: checkoutUrl(publicUrl, p.id),
    source_type: p.sourceType,
    customer_id: p.customerId,
    payer_address: p.payerAddress,
    tx_hash: p.txHash,
    confirmed_at: iso(p.confirmedAt),
    expires_at: iso(p.expiresAt),
    created_at: p.createdAt.toISOString(),
    // Extensions (decisions.md): what actually arrived, late completion, the display price.
    amount_received: formatStroops(p.amountReceived),
    late: p.late,
    failure_reason: p.failureReason,
    pricing_currency: p.pricingCurrency,
    pricing_amount: p.pricingAmount,
    // How to pay it on the ledger: destination, muxed address, memo, SEP-7 URI.
    payment_instructions: paymentInstructions(p),
  };
}
