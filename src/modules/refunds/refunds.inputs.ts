import { z } from "zod";
import { isStellarAddress } from "../../shared/assets.ts";
import { listQuerySchema } from "../../shared/pagination.ts";
import { amountSchema, idInputSchema } from "../../shared/validation.ts";
import { type RefundMemoType, whyNotMemo } from "./refunds.transaction.ts";

export const REFUND_STATUSES = ["pending_claim", "requires_signature", "submitted", "succeeded", "failed", "canceled"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const REFUND_MEMO_TYPES = ["id", "text", "hash"] as const satisfies readonly RefundMemoType[];

/** The longest reason kept (the activity log and the dashboard show it). */
const MAX_REASON_LENGTH = 500;

/** Where a refund goes: a Stellar account, with the memo it needs (an exchange's deposit memo). memo_type defaults to text. */
const refundDestinationSchema = z
  .strictObject({
    address: z
      .string()
      .max(56)
      .refine(isStellarAddress, { error: "must be a Stellar public key (G...)" })
      .meta({ description: "a Stellar public key (G...)" }),
    memo: z.string().max(64).nullable().optional(),
    memo_type: z.enum(REFUND_MEMO_TYPES).nullable().optional(),
  })
  .superRefine((d, ctx) => {
    if (d.memo == null) {
      if (d.memo_type != null) ctx.addIssue({ code: "custom", path: ["memo"], message: "is required with memo_type" });
      return;
    }
    const problem = whyNotMemo(d.memo, d.memo_type ?? "text");
    if (problem) ctx.addIssue({ code: "custom", path: ["memo"], message: problem });
  })
  .transform((d) => ({ address: d.address, memo: d.memo ?? null, memoType: d.memo == null ? null : (d.memo_type ?? "text") }))
  .meta({ id: "RefundDestination", description: "A Stellar account and, when it needs one, its memo" });

export type RefundDestination = z.output<typeof refundDestinationSchema>;

const reasonSchema = z.string().max(MAX_REASON_LENGTH);

export const createRefundSchema = z.strictObject({
  payment_id: idInputSchema.min(1),
  amount: amountSchema.optional().meta({ description: "defaults to all that is refundable" }),
  reason: reasonSchema.optional(),
  destination: refundDestinationSchema.optional().meta({ description: "defaults to the account that paid" }),
});
export type CreateRefundInput = z.output<typeof createRefundSchema>;

export const submitRefundSchema = z.strictObject({
  signed_transaction_xdr: z.string().min(1).max(20_000).meta({ description: "the refund's transaction_xdr, signed by the settlement wallet's key" }),
});

/** The payer's claim (the public page /r/<refund id>): where a pending_claim refund goes. */
export const claimRefundSchema = z.strictObject({ destination: refundDestinationSchema });

export const listRefundsSchema = listQuerySchema({
  payment_id: idInputSchema.optional(),
  status: z.enum(REFUND_STATUSES).optional(),
});

/** The desk: sends an unmatched ledger payment back to its sender. */
export const refundUnmatchedSchema = z.strictObject({
  operation_id: idInputSchema.min(1),
  amount: amountSchema.optional(),
  reason: reasonSchema.optional(),
  destination: refundDestinationSchema.optional(),
});
export type RefundUnmatchedInput = z.output<typeof refundUnmatchedSchema>;

/** The desk: counts an unmatched ledger payment toward a payment the merchant picks. */
export const applyUnmatchedSchema = z.strictObject({
  operation_id: idInputSchema.min(1),
  payment_id: idInputSchema.min(1),
  reason: reasonSchema.min(1),
});
