// Live refunds, the announcing side, for the moves that write no outbox event: the payer's claim, a
// submission, and a transaction the network refused (back to signing). Each is announced after its
// commit to this process's open screens and, on PostgreSQL, NOTIFYed at the commit to the other
// processes (events/change-channel.ts): the payer's claim may reach another host than the merchant's
// open dashboard. The other moves (created, succeeded, failed, canceled) reach the screens as their
// outbox events (refunds.live.ts listens to both).
import { changeChannel } from "../events/change-channel.ts";

export const refundChanges = changeChannel("stellar_pay_refund_changes");
