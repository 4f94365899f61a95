// Driver rows -> exactly the model types Prisma returns, one converter per model (direct-sql.ts's
// rowConverter), for every module that reads with prepared statements.
import type {
  ApiKey,
  CheckoutSession,
  Event,
  IdempotencyRecord,
  Invoice,
  InvoiceItem,
  Payment,
  PaymentLink,
  WebhookDelivery,
  WebhookEndpoint,
} from "../generated/sqlite/client.ts";
import { rowConverter } from "./direct-sql.ts";

export const toApiKey = rowConverter<ApiKey>("ApiKey");
export const toCheckoutSession = rowConverter<CheckoutSession>("CheckoutSession");
export const toEvent = rowConverter<Event>("Event");
export const toIdempotencyRecord = rowConverter<IdempotencyRecord>("IdempotencyRecord");
export const toInvoice = rowConverter<Invoice>("Invoice");
export const toInvoiceItem = rowConverter<InvoiceItem>("InvoiceItem");
export const toPayment = rowConverter<Payment>("Payment");
export const toPaymentLink = rowConverter<PaymentLink>("PaymentLink");
export const toWebhookDelivery = rowConverter<WebhookDelivery>("WebhookDelivery");
export const toWebhookEndpoint = rowConverter<WebhookEndpoint>("WebhookEndpoint");
