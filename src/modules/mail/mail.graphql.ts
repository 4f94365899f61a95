import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { listConnection } from "../../graphql/connection.ts";
import { MAIL_STATUSES, type MailKind, type MailStatus } from "./mail.service.ts";
import type { Scope } from "../../context.ts";
import { unlessRevoked, watchChanges } from "../events/changes.live.ts";
import { mailChanges } from "./mail-changes.ts";
import { findMailMessage, listMailMessages } from "./mail.store.ts";

const MailStatusEnum = builder.enumType("MailStatus", {
  description: "pending: waiting to be sent (or retried); sent: accepted by the SMTP server; logged: no SMTP_URL, written to the service's log; failed: every retry failed",
  values: MAIL_STATUSES,
});

// The body is not exposed: mail that carries a one-time link (invitations, password resets) must
// not be readable by everyone who may list the organization's mail.
const MailMessageType = builder.prismaObject("MailMessage", {
  fields: (t) => ({
    id: t.exposeID("id"),
    kind: t.exposeString("kind"),
    resourceId: t.exposeString("resourceId", { nullable: true }),
    recipient: t.exposeString("recipient"),
    subject: t.exposeString("subject"),
    status: t.field({ type: MailStatusEnum, resolve: (m) => m.status as MailStatus }),
    attemptCount: t.exposeInt("attemptCount"),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime", nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    sentAt: t.expose("sentAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  mailMessages: t.connection({
    type: MailMessageType,
    description:
      "The mail of the caller's organization and environment (about one resource if given, e.g. an invoice), newest first. An API key lists invoices' mail only: the rest is addressed to the team",
    args: { resourceId: t.arg.string() },
    resolve: (_root, args, ctx) => {
      const service = requireService(ctx);
      return listConnection(args, (page) => listMailMessages(service, { resourceId: args.resourceId || null, kind: kindReadableBy(service.scope) }, page), (m) => m.id);
    },
  }),
}));

builder.subscriptionFields((t) => ({
  mailMessageChanges: t.field({
    type: MailMessageType,
    description:
      "The mail of the caller's organization and environment (about one resource if given, e.g. an invoice) as each attempt is recorded: pending turns sent, logged or failed. Ends with UNAUTHENTICATED when the credential is revoked",
    args: { resourceId: t.arg.string() },
    subscribe: (_root, args, ctx) => {
      const { scope } = requireService(ctx);
      const kind = kindReadableBy(scope);
      const resourceId = args.resourceId || null;
      return watchChanges(
        ctx.deps,
        scope,
        mailChanges,
        (row) => (resourceId === null || row.resourceId === resourceId) && (kind === null || row.kind === kind),
        (id) => findMailMessage(ctx.deps.db, scope, id, kind),
      );
    },
    resolve: unlessRevoked,
  }),
}));

/** Invitations, resets and security notices name the team's people: an API key reads invoices' mail only (null: every kind). */
function kindReadableBy(scope: Scope): MailKind | null {
  return scope.principal.kind === "key" ? "invoice" : null;
}
