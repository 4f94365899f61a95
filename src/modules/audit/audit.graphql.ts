// The audit log for the dashboard's Activity screen: owners and admins only (it names teammates and
// what they did).
import { builder, needs } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { listConnection } from "../../graphql/connection.ts";
import { EnvironmentEnum } from "../../graphql/shared-types.ts";
import type { Environment } from "../../context.ts";
import { AUDIT_ACTIONS, type AuditAction } from "./audit.service.ts";
import { listAuditEntries } from "./audit.store.ts";

const AuditActionEnum = builder.enumType("AuditAction", {
  values: Object.fromEntries(AUDIT_ACTIONS.map((action) => [action.replace(".", "_").toUpperCase(), { value: action }])) as Record<
    string,
    { value: AuditAction }
  >,
});

const ActorKindEnum = builder.enumType("AuditActorKind", { values: ["user", "key", "operator", "payer"] as const });

const AuditEntryType = builder.prismaObject("AuditEntry", {
  description: "One sensitive action: who did what to which resource, and when",
  fields: (t) => ({
    id: t.exposeID("id"),
    action: t.field({ type: AuditActionEnum, resolve: (e) => e.action as AuditAction }),
    environment: t.field({ type: EnvironmentEnum, resolve: (e) => e.environment as Environment }),
    resourceId: t.exposeString("resourceId", { description: "the key, user, webhook endpoint or payment acted on; the organization for its wallet" }),
    actorKind: t.field({ type: ActorKindEnum, resolve: (e) => e.actorKind as "user" | "key" | "operator" | "payer" }),
    actorId: t.exposeString("actorId"),
    actorLabel: t.exposeString("actorLabel", { description: "the user's email or the key's display prefix, as they were then; the admin CLI is \"operator (admin CLI)\"" }),
    detail: t.exposeString("detail", { nullable: true, description: "what changed, in words" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryFields((t) => ({
  auditLog: t.connection({
    ...needs("team"),
    type: AuditEntryType,
    description: "The sensitive actions in the caller's organization, both environments, newest first (owner/admin)",
    resolve: (_root, args, ctx) => {
      const service = requireService(ctx);
      return listConnection(args, (page) => listAuditEntries(service.db, service.scope.organizationId, page), (e) => e.id);
    },
  }),
}));
