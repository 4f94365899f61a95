import type { Deps, Scope, ServiceContext } from "../context.ts";
import { unauthorized } from "../errors.ts";
import type { Logger } from "../shared/logger.ts";

export interface GraphQLContext {
  deps: Deps & { logger: Logger };
  /** null without a valid API key: only the checkout's public fields answer then */
  scope: Scope | null;
}

/** The service context of an authenticated caller, or UNAUTHENTICATED. */
export function requireService(ctx: GraphQLContext): ServiceContext {
  if (!ctx.scope) throw unauthorized();
  return { ...ctx.deps, scope: ctx.scope };
}
