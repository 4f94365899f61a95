// The service in the bench's own process, on the database of `env` (migrated first): its deps and its
// app, built but neither started nor served, for benches that drive the app's parts directly.
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { timeOrderedIds } from "../../src/shared/ids.ts";
import { createLogger } from "../../src/shared/logger.ts";

export async function inProcessApp(env: Record<string, string>) {
  const config = loadConfig(env);
  await migrateDatabase(config.databaseUrl);
  const database = openDatabase(config.databaseUrl);
  const deps = { db: database.db, config, clock: systemClock, ids: timeOrderedIds, logger: createLogger(config.logLevel) };
  return { config, database, deps, app: buildApp(deps) };
}
