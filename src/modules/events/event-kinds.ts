// The kinds of events the outbox records, and which of them an endpoint's subscription takes. They
// live with the events (not the webhook endpoints that subscribe to them) so that recording an event
// never imports the webhook side.

/** Every event kind, as recorded and as an endpoint can subscribe to it. */
export const EVENT_KINDS = [
  "payment.created",
  "payment.completed",
  "payment.failed",
  "payment.expired",
  "invoice.finalized",
  "invoice.paid",
  "invoice.voided",
  "checkout.session.completed",
  "checkout.session.expired",
  "refund.created",
  "refund.succeeded",
  "refund.failed",
  "refund.canceled",
  "webhook.test",
] as const;

export type EventType = (typeof EVENT_KINDS)[number];

/** Whether a subscription to `kinds` (an endpoint's enabled events, or ["*"]) takes events of `type`. */
export const takesEvent = (kinds: string[], type: string) => kinds.includes("*") || kinds.includes(type);
