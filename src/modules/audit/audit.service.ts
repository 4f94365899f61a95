// The audit log: who did what to which resource, and when. Each sensitive action adds
// auditStatement(...) to the batch that makes the change (see audit.store.ts).
import type { Deps, ServiceContext } from "../../context.ts";
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
  "refund.created",
  "refund.claimed",
  "refund.submitted",
  "refund.canceled",
  "ledger_payment.applied",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditedAction {
  action: AuditAction;
  resourceId: string;
  /** what changed, in words: the new role, the new wallet */
  detail?: string | null;
}

export interface Actor {
  /** operator: the admin CLI, run by whoever has a shell on the server; payer: a refund's payer on its public claim page */
  kind: "user" | "key" | "operator" | "payer";
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

/** The admin CLI as the log names it: it has no user or key, only a shell on the server. */
export const operatorActor = (deps: Pick<Deps, "clock">): Actor => ({ kind: "operator", id: "cli", label: "operator (admin CLI)", at: deps.clock.now() });

/** A refund's payer as the log names them: no account, only the claim page's link. */
export const payerActor = (at: Date): Actor => ({ kind: "payer", id: "claim_page", label: "the payer (refund claim page)", at });

/** The entry recording `action` by `actor`, for the batch that makes the change. */
export const auditStatement = (ctx: ServiceContext, actor: Actor, action: AuditedAction): Statement => auditStatementIn(ctx, ctx.scope, actor, action);

/** The entry recording `action` by `actor` in `where` (an organization and environment), for a caller with no scope (the CLI). */
export function auditStatementIn(deps: Deps, where: { organizationId: string; environment: string }, actor: Actor, action: AuditedAction): Statement {
  return newAuditEntryStatement(deps.db, {
    id: deps.ids.newId("aud"),
    organizationId: where.organizationId,
    environment: where.environment,
    action: action.action,
    resourceId: action.resourceId,
    actorKind: actor.kind,
    actorId: actor.id,
    actorLabel: actor.label,
    detail: action.detail ?? null,
    createdAt: actor.at,
  });
}
