// Live delivery log, the announcing side: the webhook worker announces each delivery it recorded,
// after the commit, and on PostgreSQL NOTIFYs the other processes at its commit; so do Retry now,
// Resend and Send test event (events/change-channel.ts). The subscription is webhook-deliveries.live.ts.
import { changeChannel } from "../events/change-channel.ts";

export const deliveryChanges = changeChannel("stellar_pay_delivery_changes", ["endpointId"]);
