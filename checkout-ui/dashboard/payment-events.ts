// Every payment event of this environment, live (Subscription.paymentEvents): the screens that show
// payments, or what follows from them (an invoice paid, Home's totals and checklist), read again on
// each. Screens open together share one stream (urql dedupes the same subscription).
import { useSubscription } from "@urql/preact";
import { graphql } from "./graphql.ts";

const PAYMENT_EVENTS = graphql(`subscription PaymentEvents { paymentEvents { seq type payment { id status } } }`);

/** `pause`: while the screen has nothing that could move (an invoice no longer open). */
export function usePaymentEvents(onEvent: (payment: { id: string; status: string }) => void, pause = false) {
  useSubscription({ query: PAYMENT_EVENTS, pause }, (_, event) => {
    onEvent(event.paymentEvents.payment);
    return event;
  });
}
