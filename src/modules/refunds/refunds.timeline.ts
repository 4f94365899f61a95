// A refund's timeline, for its detail screen: what the activity log recorded of it (created, claimed
// by its payer, submitted, canceled, each with who did it) and what its row says (when its
// transaction became ready to sign, how it ended), oldest first. Nothing is stored twice: the log
// and the row are the records.
import type { Db } from "../../db/client.ts";
import type { Refund } from "../../generated/sqlite/client.ts";
import { auditEntriesOf } from "../audit/audit.store.ts";

export const REFUND_TIMELINE_TYPES = ["created", "claimed", "transaction_ready", "submitted", "succeeded", "failed", "canceled"] as const;
export type RefundTimelineType = (typeof REFUND_TIMELINE_TYPES)[number];

export interface RefundTimelineEntry {
  type: RefundTimelineType;
  at: Date;
  /** who did it, as the activity log names them (a user's email, a key's prefix, the payer); null for the ledger */
  actor: string | null;
  /** what it was, in words: the amount and reason, the destination, the transaction's hash, the failure */
  detail: string | null;
}

const LOGGED: Record<string, RefundTimelineType> = {
  "refund.created": "created",
  "refund.claimed": "claimed",
  "refund.submitted": "submitted",
  "refund.canceled": "canceled",
};

/** The timeline of `refund` (as read now), oldest first. */
export async function refundTimeline(db: Db, refund: Refund): Promise<RefundTimelineEntry[]> {
  const logged: RefundTimelineEntry[] = (await auditEntriesOf(db, refund.organizationId, refund.id)).flatMap((entry) => {
    const type = LOGGED[entry.action];
    return type ? [{ type, at: entry.createdAt, actor: entry.actorLabel, detail: entry.detail }] : [];
  });
  const entries = [...logged];
  if (!entries.some((e) => e.type === "created")) entries.push({ type: "created", at: refund.createdAt, actor: null, detail: null });
  // Its transaction can be built once the destination is known: at creation, or at the payer's claim.
  const claimed = logged.find((e) => e.type === "claimed");
  if (refund.destinationAddress !== null) {
    entries.push({ type: "transaction_ready", at: claimed?.at ?? refund.createdAt, actor: null, detail: null });
  }
  if (refund.completedAt !== null && (refund.status === "succeeded" || refund.status === "failed")) {
    entries.push({ type: refund.status, at: refund.completedAt, actor: null, detail: refund.status === "succeeded" ? refund.txHash : refund.failureReason });
  }
  if (refund.status === "canceled" && !logged.some((e) => e.type === "canceled")) {
    entries.push({ type: "canceled", at: refund.completedAt ?? refund.updatedAt, actor: null, detail: null });
  }
  const order = (e: RefundTimelineEntry) => REFUND_TIMELINE_TYPES.indexOf(e.type);
  // Same instant (created with its destination known): in the order things happen.
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime() || order(a) - order(b));
}
