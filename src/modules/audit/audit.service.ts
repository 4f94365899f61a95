// The audit log: who did what to which resource, and when. Each sensitive action adds
// auditStatement(...) to the batch that makes the change (see audit.store.ts).
import type { ServiceContext } from "../../context.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { unauthorized } from "../../errors.ts";
import { apiKeyPrefixById } from "../api-keys/api-keys.store.ts";
import { userById } from "../users/users.store.ts";
import { newAuditEntryStatement } from "./audit.store.ts";

export const AUDIT_ACTIONS = [
  "api_key.created",
  "api_key.revoked",
  "webhook.secret_rotated",
  "payment.marked_completed",
  "user.role_changed",
  "user.removed",
  "settlement_wallet.changed",
  "two_factor.enabled",
  "two_factor.disabled",
  "two_factor.required",
  "two_factor.no_longer_required",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditedAction {
  action: AuditAction;
  resourceId: string;
  /** what changed, in words: the new role, the new wallet */
  detail?: string | null;
}

export interface Actor {
  kind: "user" | "key";
  id: string;
  /** the user's email or the key's display prefix */
  label: string;
  /** when the action is taken: its entry and its notices say the same moment */
  at: Date;
}

/** The caller as the log names them, a user by email, a key by its display prefix (read now, kept as it was), and the moment. */
export async function actorOf(ctx: ServiceContext): Promise<Actor> {
  const { principal } = ctx.scope;
  const label = principal.kind === "user" ? (await userById(ctx.db, principal.id))?.email : await apiKeyPrefixById(ctx.db, principal.id);
  if (!label) throw unauthorized();
  return { kind: principal.kind, id: principal.id, label, at: ctx.clock.now() };
}

/** The entry recording `action` by `actor`, for the batch that makes the change. */
export function auditStatement(ctx: ServiceContext, actor: Actor, action: AuditedAction): Statement {
  return newAuditEntryStatement(ctx.db, {
    id: ctx.ids.newId("aud"),
    organizationId: ctx.scope.organizationId,
    environment: ctx.scope.environment,
    action: action.action,
    resourceId: action.resourceId,
    actorKind: actor.kind,
    actorId: actor.id,
    actorLabel: actor.label,
    detail: action.detail ?? null,
    createdAt: actor.at,
  });
}
