import type { Config } from "./config.ts";
import type { Db } from "./db/client.ts";
import type { Clock } from "./shared/clock.ts";
import type { IdGenerator } from "./shared/ids.ts";
import type { Logger } from "./shared/logger.ts";
import type { KeyRole, Role } from "./modules/users/roles.ts";

export type Environment = "sandbox" | "production";
export const ENVIRONMENTS: readonly Environment[] = ["sandbox", "production"];

/** What every service and worker is given: nothing global, so tests can swap the clock and ids. */
export interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * The credential behind a call: an API key, or a dashboard user's session. Its role decides what the
 * call may do (src/modules/users/roles.ts).
 */
export type Principal =
  | { kind: "key"; id: string; role: KeyRole }
  | {
      kind: "user";
      id: string;
      role: Role;
      sessionId: string;
      /** the organization requires two-factor sign-in and this user has none yet: the session may only set it up */
      mustSetUpTwoFactor: boolean;
    };

/** Who is calling: resolved from an API key or a dashboard session. Every query of a service is confined to it. */
export interface Scope {
  organizationId: string;
  environment: Environment;
  principal: Principal;
}

/**
 * Whose idempotency keys and rate-limit budget a call uses: its API key's, or its user's (every
 * session of a user shares them). Key and user ids have distinct prefixes, so they never meet.
 */
export const callerIdOf = (scope: Scope) => scope.principal.id;

/** What the process gives the doors and workers it builds: the deps and the logger. */
export type AppDeps = Deps & { logger: Logger };

export interface ServiceContext extends Deps {
  scope: Scope;
}

/** The where-clause that confines a query to the caller's organization and environment. */
export const inScope = (scope: Pick<Scope, "organizationId" | "environment">) => ({ organizationId: scope.organizationId, environment: scope.environment });

/** Whether a row read by its id alone belongs to the caller (else it is answered as not found). */
export const isInScope = (row: { organizationId: string; environment: string }, scope: Scope) =>
  row.organizationId === scope.organizationId && row.environment === scope.environment;
