// Mail is written to the outbox (MailMessage) in the transaction of the change that causes it, and
// sent after commit by the mail worker (src/mail/mail-worker.ts): a change that rolls back sends
// nothing, and a message that committed is sent even if the process dies a moment later.
import type { MailMessage } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { secretBoxOf } from "../../webhooks/secret-box.ts";
import { mailHtml } from "./mail-html.ts";
import { insertMailRowsStatement, newMailStatement } from "./mail.store.ts";

/** The name the team's own mail (invitations, resets, notices) comes from, above its heading. */
const PRODUCT_NAME = "Stellar Pay";

/**
 * security_notice: to every owner, about a sensitive change (src/modules/audit/security-notice.ts);
 * the notices each user chooses (mail-notices.ts): payment_received, invoice_paid, webhook_failing.
 */
export type MailKind = "invoice" | "invitation" | "password_reset" | "security_notice" | NoticeKind;
/** The notices a dashboard user chooses to get or not (security notices are not among them: they always go). */
export const NOTICE_KINDS = ["payment_received", "invoice_paid", "webhook_failing"] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];
/**
 * Kinds whose body carries a one-time link that signs someone in: the outbox keeps their body sealed
 * (the secret box of src/webhooks/secret-box.ts), and the mail worker opens it only to send it.
 */
const SEALED_KINDS: readonly string[] = ["invitation", "password_reset"] satisfies MailKind[];

/** The bodies of a stored message as they are sent: opened when its kind is sealed (no HTML part for a row written before HTML mail). */
export function mailBodiesOf(config: Deps["config"], message: Pick<MailMessage, "kind" | "textBody" | "htmlBody">): { text: string; html: string | null } {
  const open = (body: string) => (SEALED_KINDS.includes(message.kind) ? secretBoxOf(config).open(body) : body);
  return { text: open(message.textBody), html: message.htmlBody === null ? null : open(message.htmlBody) };
}
export const MAIL_STATUSES = ["pending", "sent", "logged", "failed"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export interface OutgoingMail {
  kind: MailKind;
  resourceId: string | null;
  recipient: string;
  subject: string;
  /** the plain-text part, which the HTML part is drawn from (mail-html.ts) */
  text: string;
  /** the From name when the mail speaks for the merchant (an invoice: the display name); else MAIL_FROM's */
  senderName?: string | null;
}

type QueueDeps = Pick<Deps, "clock" | "ids" | "db" | "config">;
type MailScope = { organizationId: string; environment: string };

/** The outbox row of `mail`, due now: the text part, and the HTML part drawn from it (mail-html.ts), both sealed for the sealed kinds. */
function outboxRow(deps: Omit<QueueDeps, "db">, scope: MailScope, mail: OutgoingMail): MailMessage {
  const now = deps.clock.now();
  const seal = (body: string) => (SEALED_KINDS.includes(mail.kind) ? secretBoxOf(deps.config).sealText(body) : body);
  const html = mailHtml({ subject: mail.subject, text: mail.text, from: mail.senderName || PRODUCT_NAME });
  return {
    id: deps.ids.newId("msg"),
    organizationId: scope.organizationId,
    environment: scope.environment,
    kind: mail.kind,
    resourceId: mail.resourceId,
    recipient: mail.recipient,
    subject: mail.subject,
    textBody: seal(mail.text),
    htmlBody: seal(html),
    senderName: mail.senderName ?? null,
    status: "pending" satisfies MailStatus,
    attemptCount: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    lastError: null,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The outbox insert of `mail`, due now, for the batch of the change that causes it. */
export const queueMailStatement = (deps: QueueDeps, scope: MailScope, mail: OutgoingMail): Statement => newMailStatement(deps.db, outboxRow(deps, scope, mail));

/** The outbox insert of any number of mails as ONE statement (a page of completed payments' notices). */
export const queueMailsStatement = (deps: QueueDeps, mails: { scope: MailScope; mail: OutgoingMail }[]): Statement =>
  insertMailRowsStatement(
    deps.db,
    mails.map(({ scope, mail }) => outboxRow(deps, scope, mail)),
  );
