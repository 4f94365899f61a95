// The only file that starts things: config -> migrations -> (workers, when WORKERS > 1) ->
// database -> app -> server -> signals.
import cluster from "node:cluster";
import { buildApp } from "./app.ts";
import { type ListeningMessage, superviseWorkers } from "./cluster/supervisor.ts";
import { printDemo, setUpDemo } from "./cli/demo.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { serve } from "./server.ts";
import { systemClock } from "./shared/clock.ts";
import { randomIds } from "./shared/ids.ts";
import { type Logger, createLogger } from "./shared/logger.ts";

async function main() {
  let config: Config;
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
  const announce = (url: string) => {
    const processes = config.workers > 1 ? `, ${config.workers} worker processes` : "";
    logger.info("listening", { url, publicUrl: config.publicUrl, database: config.dialect, ledger: config.ledger, workers: config.workers });
    console.log(`Stellar payment service listening on ${url} (public URL ${config.publicUrl}, ${config.dialect}${processes})`);
  };
  if (cluster.isWorker) return serveRequests(config, logger, (url) => process.send!({ type: "worker:listening", url } satisfies ListeningMessage));

  const applied = await migrateDatabase(config.databaseUrl);
  if (applied.length) logger.info("migrations applied", { applied });
  if (config.workers > 1) return superviseWorkers(config, logger, announce);
  return serveRequests(config, logger, announce);
}

/** The service itself: this process alone (WORKERS=1) or one of the workers. */
async function serveRequests(config: Config, logger: Logger, announce: (url: string) => void) {
  const database = openDatabase(config.databaseUrl);
  const app = buildApp({ db: database.db, config, clock: systemClock, ids: randomIds, logger });
  const server = await serve(app, { port: config.port, host: config.host });
  await app.start({ url: server.url });
  announce(server.url);
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
