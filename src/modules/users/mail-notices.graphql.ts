// GraphQL of the mail notices a dashboard user chooses (src/modules/mail/mail-notices.ts): read on
// the viewer, set with updateMailNotices. Each person chooses for themselves; an API key has none.
import { builder, needs } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { ViewerType } from "./users.graphql.ts";
import { chooseMailNotices, mailNoticesOf } from "./users.service.ts";

type MailNotices = ReturnType<typeof mailNoticesOf>;

const MailNoticesType = builder.objectRef<MailNotices>("MailNotices").implement({
  description: "Which notices the signed-in user gets by mail. Security notices to owners always go and are not listed",
  fields: (t) => ({
    paymentReceived: t.exposeBoolean("paymentReceived", { description: "a payment of the organization completed (either environment)" }),
    invoicePaid: t.exposeBoolean("invoicePaid", { description: "an invoice was paid" }),
    webhookFailing: t.exposeBoolean("webhookFailing", {
      description: "a webhook endpoint has failed for an hour (once per failure; sent to developers, admins and owners)",
    }),
  }),
});

const MailNoticesInput = builder.inputType("MailNoticesInput", {
  description: "The notices to turn on (true) or off (false); those left out stay as they are",
  fields: (t) => ({
    paymentReceived: t.boolean(),
    invoicePaid: t.boolean(),
    webhookFailing: t.boolean(),
  }),
});

builder.objectField(ViewerType, "mailNotices", (t) =>
  t.field({
    type: MailNoticesType,
    nullable: true,
    description: "the signed-in user's mail notices (null for an API key)",
    resolve: (viewer) => (viewer.user ? mailNoticesOf(viewer.user) : null),
  }),
);

builder.mutationFields((t) => ({
  updateMailNotices: t.field({
    ...needs("read"),
    type: MailNoticesType,
    description: "Chooses which notices the signed-in user gets by mail; answers them all. Only a dashboard session (an API key has no mailbox)",
    args: { input: t.arg({ type: MailNoticesInput, required: true }) },
    resolve: (_root, args, ctx) => chooseMailNotices(requireService(ctx), args.input),
  }),
}));
