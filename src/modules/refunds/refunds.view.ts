// The Refund JSON (object "refund"), built in one place for REST and webhooks.
import { z } from "zod";
import type { Refund } from "../../generated/sqlite/client.ts";
import { assetRef } from "../../shared/assets.ts";
import { amountJsonSchema, assetRefJsonSchema, timestampJsonSchema } from "../../shared/json-schemas.ts";
import { formatStroops } from "../../shared/money.ts";
import type { EventType } from "../events/event-kinds.ts";
import { REFUND_MEMO_TYPES, REFUND_STATUSES, type RefundStatus } from "./refunds.inputs.ts";
import type { RefundMemoType } from "./refunds.transaction.ts";

/** The payer's claim page; the id carries `re_`, so the path is /r/re_<...>. */
export const refundClaimUrl = (publicUrl: string, id: string) => `${publicUrl}/r/${id}`;

/** Its transaction to sign, when it is built (a refund read or answered by itself, awaiting its signature). */
export interface PreparedRefundTransaction {
  xdr: string;
  sep7Uri: string;
  /** the destination has no trustline for the asset: it is sent a claimable balance to claim */
  claimableBalance: boolean;
}

export const refundJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix re_" }),
    object: z.literal("refund"),
    payment_id: z.string().nullable().meta({ description: "null when it sends back an unmatched ledger payment (ledger_operation_id)" }),
    ledger_operation_id: z.string().nullable().meta({ description: "the unmatched ledger payment it sends back" }),
    amount: amountJsonSchema,
    asset: assetRefJsonSchema,
    status: z.enum(REFUND_STATUSES),
    reason: z.string().nullable(),
    destination_address: z.string().nullable().meta({ description: "null while pending_claim" }),
    destination_memo: z.string().nullable(),
    destination_memo_type: z.enum(REFUND_MEMO_TYPES).nullable(),
    claim_url: z.url().nullable().meta({ description: "while pending_claim: the page where the payer says where the money goes, /r/<refund id>" }),
    transaction_xdr: z.string().nullable().meta({
      description: "while requires_signature, in answers about this one refund: the transaction to sign with the settlement wallet's key, built with its current sequence (valid 30 minutes); null in lists and events",
    }),
    sep7_uri: z.string().nullable().meta({ description: "transaction_xdr as a SEP-7 web+stellar:tx URI, for a mobile wallet" }),
    tx_hash: z.string().nullable().meta({ description: "the ledger transaction that sent it (or failed)" }),
    failure_reason: z.string().nullable().meta({ description: "the network's result codes when its transaction failed" }),
    created_at: timestampJsonSchema,
    updated_at: timestampJsonSchema,
    completed_at: timestampJsonSchema.nullable().meta({ description: "when it succeeded, failed or was canceled" }),
  })
  .meta({ id: "Refund", description: "Money sent back from the settlement wallet, signed by the merchant" });

export type RefundJson = z.infer<typeof refundJsonSchema>;

export function refundJson(r: Refund, publicUrl: string, prepared: PreparedRefundTransaction | null = null): RefundJson {
  return {
    id: r.id,
    object: "refund",
    payment_id: r.paymentId,
    ledger_operation_id: r.ledgerOperationId,
    amount: formatStroops(r.amount),
    asset: assetRef({ code: r.assetCode, issuer: r.assetIssuer }),
    status: r.status as RefundStatus,
    reason: r.reason,
    destination_address: r.destinationAddress,
    destination_memo: r.destinationMemo,
    destination_memo_type: r.destinationMemoType as RefundMemoType | null,
    claim_url: r.status === "pending_claim" ? refundClaimUrl(publicUrl, r.id) : null,
    transaction_xdr: prepared?.xdr ?? null,
    sep7_uri: prepared?.sep7Uri ?? null,
    tx_hash: r.txHash,
    failure_reason: r.failureReason,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    completed_at: r.completedAt ? r.completedAt.toISOString() : null,
  };
}

export type RefundEventType = Extract<EventType, `refund.${string}`>;

/** The event of a refund's move: its data is the refund as the API shows it after the move. */
export const refundEvent = (refund: Refund, type: RefundEventType, publicUrl: string) => ({ type, resourceId: refund.id, data: refundJson(refund, publicUrl) });
