// The Invoice JSON (object "invoice"): every field always present, null when unset (decisions).
import { z } from "zod";
import type { CheckoutSession, Invoice, InvoiceItem, Payment } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { amountJsonSchema, assetRefJsonSchema, metadataJsonSchema, timestampJsonSchema } from "../../shared/json-schemas.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";
import { checkoutSessionUrl } from "../checkout-sessions/checkout-sessions.view.ts";
import { INVOICE_STATUSES, type InvoiceStatus } from "./invoices.inputs.ts";

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

export const invoiceJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix inv_" }),
    object: z.literal("invoice"),
    invoice_number: z.string().regex(/^INV-\d+$/),
    status: z.enum(INVOICE_STATUSES),
    amount: amountJsonSchema,
    created_at: timestampJsonSchema,
    updated_at: timestampJsonSchema,
    settlement_asset: assetRefJsonSchema.nullable().meta({ description: "the linked payment's, once finalized" }),
    allowed_assets: z.array(assetRefJsonSchema).nullable().meta({ description: "the linked payment's, once finalized" }),
    description: z.string().nullable(),
    metadata: metadataJsonSchema,
    customer_id: z.string().nullable(),
    checkout_session_id: z.string().nullable(),
    checkout_url: z.url().nullable(),
    hosted_invoice_url: z.url().meta({ description: "the public invoice page, /i/<invoice id>" }),
    items: z.array(
      z
        .object({ description: z.string(), quantity: z.string().regex(/^\d+$/), unit_amount: amountJsonSchema })
        .meta({ id: "InvoiceItem" }),
    ),
    due_at: timestampJsonSchema,
    paid_at: timestampJsonSchema.nullable(),
    sent_at: timestampJsonSchema.nullable(),
    payment_intent_id: z.string().nullable().meta({ description: "the linked payment, once finalized" }),
    finalized_at: timestampJsonSchema.nullable(),
    voided_at: timestampJsonSchema.nullable(),
  })
  .meta({ id: "Invoice" });

export type InvoiceJson = z.infer<typeof invoiceJsonSchema>;

export function invoiceJson(i: InvoiceWithDetails, publicUrl: string): InvoiceJson {
  const p = i.payment;
  return {
    id: i.id,
    object: "invoice",
    invoice_number: i.invoiceNumber,
    status: i.status as InvoiceStatus,
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
