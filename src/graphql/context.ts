import type { Deps, Scope, ServiceContext } from "../context.ts";
import { unauthorized } from "../errors.ts";
import type { Ledger } from "../ledger/ledger.ts";
import type { Logger } from "../shared/logger.ts";

export interface GraphQLContext {
  /** `ledger` is given by the app (checkout transactions use it) */
  deps: Deps & { logger: Logger; ledger?: Ledger };
  /** null without a valid API key: only the checkout's public fields answer then */
  scope: Scope | null;
}

/** The service context of an authenticated caller, or UNAUTHENTICATED. */
export function requireService(ctx: GraphQLContext): ServiceContext {
  if (!ctx.scope) throw unauthorized();
  return { ...ctx.deps, scope: ctx.scope };
}
