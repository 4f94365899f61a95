import type { Config } from "./config.ts";
import type { Db } from "./db/client.ts";
import type { Clock } from "./shared/clock.ts";
import type { IdGenerator } from "./shared/ids.ts";
import type { Logger } from "./shared/logger.ts";

export type Environment = "sandbox" | "production";
export const ENVIRONMENTS: readonly Environment[] = ["sandbox", "production"];

/** What every service and worker is given: nothing global, so tests can swap the clock and ids. */
export interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  ids: IdGenerator;
}

/** Who is calling: resolved from an API key. Every query of a service is confined to it. */
export interface Scope {
  organizationId: string;
  environment: Environment;
  apiKeyId: string;
}

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
