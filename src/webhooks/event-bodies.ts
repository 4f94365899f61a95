// What a webhook delivery carries, as zod schemas: the body of each event kind (deliveryBody writes
// it) and the headers signatureHeaders sends. The OpenAPI document's `webhooks` section is made from
// these, so a receiver's generated types name every event.
import { z } from "zod";
import { type EventType, EVENT_KINDS } from "../modules/events/event-kinds.ts";
import { checkoutSessionJsonSchema } from "../modules/checkout-sessions/checkout-sessions.view.ts";
import { invoiceJsonSchema } from "../modules/invoices/invoices.view.ts";
import { paymentJsonSchema } from "../modules/payments/payments.view.ts";
import { refundJsonSchema } from "../modules/refunds/refunds.view.ts";
import { timestampJsonSchema } from "../shared/json-schemas.ts";

/** The object each kind's `data` is, as the API shows it after the change (webhook.test: a sample payment). */
const EVENT_DATA: Record<EventType, z.ZodType> = {
  "payment.created": paymentJsonSchema,
  "payment.completed": paymentJsonSchema,
  "payment.failed": paymentJsonSchema,
  "payment.expired": paymentJsonSchema,
  "invoice.finalized": invoiceJsonSchema,
  "invoice.paid": invoiceJsonSchema,
  "invoice.voided": invoiceJsonSchema,
  "checkout.session.completed": checkoutSessionJsonSchema,
  "checkout.session.expired": checkoutSessionJsonSchema,
  "refund.created": refundJsonSchema,
  "refund.succeeded": refundJsonSchema,
  "refund.failed": refundJsonSchema,
  "refund.canceled": refundJsonSchema,
  "webhook.test": paymentJsonSchema,
};

/** "checkout.session.completed" -> "CheckoutSessionCompletedEvent", its name in the document. */
const componentName = (kind: string) => `${kind.split(".").map((word) => word[0]!.toUpperCase() + word.slice(1)).join("")}Event`;

const TEST_EVENT = 'Sent from "Send test event": `data` is a sample payment, never stored, whose metadata has "service_test": "true"';

/** The body of a delivery of `kind`: {"id", "event", "created_at", "data"}. */
const eventBodySchema = (kind: EventType) =>
  z
    .object({
      id: z.string().max(64).meta({ description: "the event's id, prefix evt_; the same on every retry of a delivery" }),
      event: z.literal(kind),
      created_at: timestampJsonSchema,
      data: EVENT_DATA[kind],
    })
    .meta({ id: componentName(kind), ...(kind === "webhook.test" && { description: TEST_EVENT }) });

export const EVENT_BODIES = EVENT_KINDS.map((kind) => ({ kind, name: componentName(kind), body: eventBodySchema(kind) }));

const header = (id: string, schema: z.ZodString, description: string) => schema.meta({ description, param: { id } });

/** The headers every delivery carries (interface-spec.md's Service-* and the Standard Webhooks ones), but Service-Event. */
const SIGNATURE_HEADERS = {
  "Service-Signature": header(
    "Service-Signature",
    z.string().max(512).regex(/^t=\d+(,v1=[0-9a-f]{64})+$/),
    'HMAC-SHA256 of "<t>.<raw body>" keyed with the whsec_ secret, as t=<unix seconds>,v1=<lowercase hex>; during a rotation\'s 24 hours, one v1 per secret. Compare in constant time',
  ),
  "Service-Timestamp": header("Service-Timestamp", z.string().max(20).regex(/^\d+$/), "Unix seconds, the t of the signature: refuse one more than 300 seconds away"),
  "Service-Delivery-ID": header("Service-Delivery-ID", z.string().max(64), "the delivery's id (whd_...), the same on every retry: deduplicate on it"),
  "webhook-id": header("webhook-id", z.string().max(64), "Standard Webhooks: the delivery's id, as Service-Delivery-ID"),
  "webhook-timestamp": header("webhook-timestamp", z.string().max(20).regex(/^\d+$/), "Standard Webhooks: as Service-Timestamp"),
  "webhook-signature": header(
    "webhook-signature",
    z.string().max(512).regex(/^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$/),
    'Standard Webhooks: v1,<base64 HMAC-SHA256 of "<webhook-id>.<t>.<raw body>" keyed with the base64-decoded part of the secret after whsec_>',
  ),
};

/** The headers of a delivery of `kind`. */
export const deliveryHeadersSchema = (kind: EventType) =>
  z.object({ ...SIGNATURE_HEADERS, "Service-Event": z.literal(kind).meta({ description: "the event kind, as `event` in the body" }) });
