// GraphQL `Payment.paymentInstructions`: the same instructions REST shows as payment_instructions.
import { builder } from "../../graphql/builder.ts";
import { type PaymentInstructions, paymentInstructions } from "./payment-instructions.ts";
import { PaymentType } from "./payments.graphql.ts";

const PaymentInstructionsType = builder.objectRef<PaymentInstructions>("PaymentInstructions").implement({
  description: "How to pay a payment on the Stellar ledger",
  fields: (t) => ({
    destination: t.exposeString("destination", { description: "the settlement wallet (G...), paid with the memo" }),
    muxedDestination: t.exposeString("muxed_destination", { description: "the settlement wallet muxed with the memo id (M...)" }),
    memoType: t.exposeString("memo_type"),
    memo: t.exposeString("memo"),
    networkPassphrase: t.exposeString("network_passphrase"),
    sep7Uri: t.exposeString("sep7_uri", { description: "a SEP-7 web+stellar:pay URI" }),
  }),
});

builder.objectField(PaymentType, "paymentInstructions", (t) =>
  t.field({ type: PaymentInstructionsType, resolve: (p) => paymentInstructions(p) }),
);
