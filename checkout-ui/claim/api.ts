// The claim page's operations (public, no API key: the refund's id is the credential), sent with the
// checkout's GraphQL helper.
import { type AssetRef, graphql } from "../src/api.ts";

export type RefundStatus = "pending_claim" | "requires_signature" | "submitted" | "succeeded" | "failed" | "canceled";

export interface RefundClaim {
  id: string;
  amount: string;
  asset: AssetRef;
  status: RefundStatus;
  destinationAddress: string | null;
  destinationMemo: string | null;
  destinationMemoType: "text" | "id" | "hash" | null;
  /** the destination cannot hold the asset (no trustline): it gets a claimable balance */
  claimableBalance: boolean;
  txHash: string | null;
  completedAt: string | null;
}

const CLAIM_FIELDS = "id amount asset { assetCode issuerAddress } status destinationAddress destinationMemo destinationMemoType claimableBalance txHash completedAt";

/** Every operation the page sends, word for word. */
export const CLAIM_OPERATIONS = {
  load: `query ($id: ID!) { refundClaim(id: $id) { ${CLAIM_FIELDS} } }`,
  claim: `mutation ($id: ID!, $destination: RefundDestinationInput!) { claimRefund(id: $id, destination: $destination) { ${CLAIM_FIELDS} } }`,
};

export async function loadRefundClaim(id: string): Promise<RefundClaim> {
  return (await graphql<{ refundClaim: RefundClaim }>(CLAIM_OPERATIONS.load, { id })).refundClaim;
}

export async function claimRefund(id: string, destination: { address: string; memo?: string; memoType?: "text" | "id" | "hash" }): Promise<RefundClaim> {
  return (await graphql<{ claimRefund: RefundClaim }>(CLAIM_OPERATIONS.claim, { id, destination })).claimRefund;
}

/** While the refund is on its way the page reads it again this often (no live subscription of refunds yet). */
export const POLL_MS = 2000;
export const isFinal = (status: RefundStatus) => status === "succeeded" || status === "failed" || status === "canceled";
