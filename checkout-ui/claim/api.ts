// The claim page's operations (public, no API key: the refund's id is the credential), sent with the
// checkout's GraphQL and subscription helpers.
import { type AssetRef, graphql, watchSubscription } from "../src/api.ts";

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
  /** who is refunding: the name the merchant shows payers */
  merchantName: string;
  /** the Stellar network the money moves on */
  network: "public" | "testnet" | "simulated" | "other";
  /** once sent, its transaction on a public explorer; null where none shows it (the simulated network) */
  explorerUrl: string | null;
}

const CLAIM_FIELDS = "id amount asset { assetCode issuerAddress } status destinationAddress destinationMemo destinationMemoType claimableBalance txHash completedAt merchantName network explorerUrl";

/** Every operation the page sends, word for word. */
export const CLAIM_OPERATIONS = {
  load: `query ($id: ID!) { refundClaim(id: $id) { ${CLAIM_FIELDS} } }`,
  watch: `subscription ($id: ID!) { refundClaim(id: $id) { ${CLAIM_FIELDS} } }`,
  claim: `mutation ($id: ID!, $destination: RefundDestinationInput!) { claimRefund(id: $id, destination: $destination) { ${CLAIM_FIELDS} } }`,
};

export async function loadRefundClaim(id: string): Promise<RefundClaim> {
  return (await graphql<{ refundClaim: RefundClaim }>(CLAIM_OPERATIONS.load, { id })).refundClaim;
}

export async function claimRefund(id: string, destination: { address: string; memo?: string; memoType?: "text" | "id" | "hash" }): Promise<RefundClaim> {
  return (await graphql<{ claimRefund: RefundClaim }>(CLAIM_OPERATIONS.claim, { id, destination })).claimRefund;
}

/** The refund as it is on every (re)connection, then after each of its moves (submitted, sent, failed, canceled). */
export function watchRefundClaim(id: string, onClaim: (claim: RefundClaim) => void): () => void {
  return watchSubscription<{ refundClaim: RefundClaim }>(CLAIM_OPERATIONS.watch, { id }, (data) => onClaim(data.refundClaim));
}

export const isFinal = (status: RefundStatus) => status === "succeeded" || status === "failed" || status === "canceled";
