// Mail to every owner of the organization when a change could redirect its money or its access (a
// settlement wallet, a live key, a role): whoever takes over a session cannot make it silently.
import type { ServiceContext } from "../../context.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { queueMailStatement } from "../mail/mail.service.ts";
import { usersOfOrganization } from "../users/users.store.ts";
import type { Actor } from "./audit.service.ts";

/** The outbox inserts of the notice of `change` (e.g. "The production settlement wallet was set to G..."), one per owner. */
export async function ownerNoticeStatements(ctx: ServiceContext, actor: Actor, change: string): Promise<Statement[]> {
  const owners = (await usersOfOrganization(ctx.db, ctx.scope.organizationId)).filter((user) => user.role === "owner");
  const when = actor.at.toISOString();
  const by = actor.kind === "user" ? actor.label : `the API key ${actor.label}…`;
  const text = `${change}\n\nBy: ${by}\nWhen: ${when}\n\nIf you did not expect this change, sign in to the dashboard, look at Activity and change your password.\n`;
  return owners.map((owner) =>
    queueMailStatement(ctx, ctx.scope, { kind: "security_notice", resourceId: null, recipient: owner.email, subject: `Security notice: ${change}`, text }),
  );
}
