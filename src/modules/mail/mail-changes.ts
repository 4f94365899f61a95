// Live mail status: the mail worker announces each attempt it recorded (pending → sent, logged, or
// failed), so an open invoice shows its mail's status as it changes (events/change-channel.ts);
// Subscription.mailMessageChanges (mail.graphql.ts) is the watching side.
import { changeChannel } from "../events/change-channel.ts";

/** `resourceId` is "" for mail about no resource. */
export const mailChanges = changeChannel("stellar_pay_mail_changes", ["resourceId", "kind"]);
