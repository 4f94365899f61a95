// How a message leaves the process: SMTP through nodemailer when SMTP_URL is set, else one log line
// (recipient and subject, never the body: it may carry a one-time link).
import nodemailer from "nodemailer";
import addressparser from "nodemailer/lib/addressparser/index.js";
import type { Config } from "../config.ts";
import type { Logger } from "../shared/logger.ts";

export interface MailEnvelope {
  id: string;
  /** an address ("Name <a@b>") or a name and address that nodemailer quotes and encodes itself */
  from: string | { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  /** the HTML part beside the text (null: text only, a message queued before HTML mail) */
  html: string | null;
}

/**
 * MAIL_FROM with `senderName` as its name when given (an invoice comes from the merchant's display
 * name, at the service's address: the address is the one the SMTP server may send as).
 */
export function senderOf(mailFrom: string, senderName: string | null): MailEnvelope["from"] {
  const [parsed] = addressparser(mailFrom, { flatten: true });
  return senderName && parsed ? { name: senderName, address: parsed.address } : mailFrom;
}

export interface MailTransport {
  /** "sent" when an SMTP server accepted it, "logged" when it went to the log; throws when it failed */
  send(mail: MailEnvelope): Promise<"sent" | "logged">;
  close(): void;
}

export function createMailTransport(config: Pick<Config, "smtpUrl" | "mailTimeoutMs">, logger: Logger): MailTransport {
  if (!config.smtpUrl) {
    return {
      async send(mail) {
        logger.info("mail written to the log (no SMTP_URL)", { mailId: mail.id, recipient: mail.to, subject: mail.subject });
        return "logged";
      },
      close() {},
    };
  }
  const smtp = nodemailer.createTransport({
    url: config.smtpUrl,
    // Each wait is bounded, so a send ends within the mail worker's lease (mail-worker.ts).
    connectionTimeout: config.mailTimeoutMs,
    greetingTimeout: config.mailTimeoutMs,
    socketTimeout: config.mailTimeoutMs,
  });
  return {
    async send(mail) {
      // The message id is the outbox row's: a resend after a crash carries the same Message-ID, so
      // a receiving system can tell it is the same message.
      await smtp.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html && { html: mail.html }), messageId: `<${mail.id}@stellar-pay>` });
      return "sent";
    },
    close: () => smtp.close(),
  };
}
