// Mail is written to the outbox (MailMessage) in the transaction of the change that causes it, and
// sent after commit by the mail worker (src/mail/mail-worker.ts): a change that rolls back sends
// nothing, and a message that committed is sent even if the process dies a moment later.
import type { MailMessage } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { secretBoxOf } from "../../webhooks/secret-box.ts";
import { newMailStatement } from "./mail.store.ts";

/** security_notice: to every owner, about a sensitive change (src/modules/audit/security-notice.ts) */
export type MailKind = "invoice" | "invitation" | "password_reset" | "security_notice";
/**
 * Kinds whose body carries a one-time link that signs someone in: the outbox keeps their body sealed
 * (the secret box of src/webhooks/secret-box.ts), and the mail worker opens it only to send it.
 */
const SEALED_KINDS: readonly string[] = ["invitation", "password_reset"] satisfies MailKind[];

/** The body of a stored message as it is sent: opened when its kind is sealed. */
export const mailBodyOf = (config: Deps["config"], message: Pick<MailMessage, "kind" | "textBody">) =>
  SEALED_KINDS.includes(message.kind) ? secretBoxOf(config).open(message.textBody) : message.textBody;
export const MAIL_STATUSES = ["pending", "sent", "logged", "failed"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export interface OutgoingMail {
  kind: MailKind;
  resourceId: string | null;
  recipient: string;
  subject: string;
  text: string;
}

/** The outbox insert of `mail`, due now, for the batch of the change that causes it. */
export function queueMailStatement(deps: Pick<Deps, "clock" | "ids" | "db" | "config">, scope: { organizationId: string; environment: string }, mail: OutgoingMail): Statement {
  const now = deps.clock.now();
  return newMailStatement(deps.db, {
    id: deps.ids.newId("msg"),
    organizationId: scope.organizationId,
    environment: scope.environment,
    kind: mail.kind,
    resourceId: mail.resourceId,
    recipient: mail.recipient,
    subject: mail.subject,
    textBody: SEALED_KINDS.includes(mail.kind) ? secretBoxOf(deps.config).sealText(mail.text) : mail.text,
    status: "pending" satisfies MailStatus,
    attemptCount: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    lastError: null,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
  });
}
