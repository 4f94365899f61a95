// The only file that starts things: config -> database -> app -> server -> signals.
import { buildApp } from "./app.ts";
import { printDemo, setUpDemo } from "./cli/demo.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { serve } from "./server.ts";
import { systemClock } from "./shared/clock.ts";
import { randomIds } from "./shared/ids.ts";
import { createLogger } from "./shared/logger.ts";

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const applied = await migrateDatabase(config.databaseUrl);
  if (applied.length) logger.info("migrations applied", { applied });

  const database = openDatabase(config.databaseUrl);
  const app = buildApp({ db: database.db, config, clock: systemClock, ids: randomIds, logger });
  const server = await serve(app, { port: config.port, host: config.host });
  await app.start({ url: server.url });
  logger.info("listening", { url: server.url, publicUrl: config.publicUrl, database: config.dialect, ledger: config.ledger });
  console.log(`Stellar payment service listening on ${server.url} (public URL ${config.publicUrl}, ${config.dialect})`);
  if (process.argv.includes("--demo")) {
    const demo = await setUpDemo({ db: database.db, config, clock: systemClock, ids: randomIds }, app.ledger);
    printDemo(demo, `${config.publicUrl}/_sim/horizon`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    await server.close();
    await app.stop();
    await database.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
