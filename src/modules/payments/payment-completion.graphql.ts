// GraphQL `markPaymentCompleted`: the dashboard's manual completion (REST POST /payments/{id}/complete).
import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { defined } from "../../graphql/shared-types.ts";
import { parseInput } from "../../shared/validation.ts";
import { markPaymentCompleted } from "./payment-completion.ts";
import { manualCompletionSchema } from "./payments.inputs.ts";

builder.mutationFields((t) => ({
  markPaymentCompleted: t.prismaField({
    type: "Payment",
    description: "pending -> completed, carried to its checkout session and invoice; 409 (CONFLICT) from any other state",
    args: {
      id: t.arg.id({ required: true }),
      reason: t.arg.string({ description: "why it is marked completed by hand; kept on the payment (manualCompletionReason)" }),
      txHash: t.arg.string(),
      payerAddress: t.arg.string(),
    },
    resolve: (_query, _root, args, ctx) => {
      const body = defined({ reason: args.reason, tx_hash: args.txHash, payer_address: args.payerAddress });
      const input = parseInput(manualCompletionSchema, body, "input");
      return markPaymentCompleted(requireService(ctx), String(args.id), input);
    },
  }),
}));
