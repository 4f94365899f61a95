// The Invoice JSON (object "invoice"): every field always present, null when unset (decisions).
import type { CheckoutSession, Invoice, InvoiceItem, Payment } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";
import { checkoutSessionUrl } from "../checkout-sessions/checkout-sessions.view.ts";

/** What every invoice read loads, so the JSON is built from one row. */
export const invoiceInclude = {
  items: { orderBy: { position: "asc" as const } },
  payment: true,
  checkoutSession: true,
};

export type InvoiceWithDetails = Invoice & {
  items: InvoiceItem[];
  payment: Payment | null;
  checkoutSession: CheckoutSession | null;
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const hostedInvoiceUrl = (publicUrl: string, id: string) => `${publicUrl}/i/${id}`;

export function invoiceJson(i: InvoiceWithDetails, publicUrl: string) {
  const p = i.payment;
  return {
    id: i.id,
    object: "invoice",
    invoice_number: i.invoiceNumber,
    status: i.status,
    amount: formatStroops(i.amount),
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    settlement_asset: p ? assetRef({ code: p.settlementAssetCode, issuer: p.settlementAssetIssuer }) : null,
    allowed_assets: p ? parseAssetList(p.allowedAssets).map(assetRef) : null,
    description: i.description,
    metadata: deserializeMetadata(i.metadata),
    customer_id: i.customerId,
    checkout_session_id: i.checkoutSessionId,
    checkout_url: i.checkoutSessionId ? checkoutSessionUrl(publicUrl, i.checkoutSessionId) : null,
    hosted_invoice_url: hostedInvoiceUrl(publicUrl, i.id),
    items: i.items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      unit_amount: formatStroops(item.unitAmount),
    })),
    due_at: i.dueAt.toISOString(),
    paid_at: iso(i.paidAt),
    sent_at: iso(i.sentAt),
    // Extensions: the linked payment and when the invoice changed state.
    payment_intent_id: i.paymentId,
    finalized_at: iso(i.finalizedAt),
    voided_at: iso(i.voidedAt),
  };
}
