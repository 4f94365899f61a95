// The only file that starts things: config -> migrations -> the service (serve-requests.ts) in
// this process, or in each worker forked by the supervisor when WORKERS > 1 (cluster/).
import cluster from "node:cluster";
import { type ListeningMessage, superviseWorkers } from "./cluster/supervisor.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { ledgerApiSummary } from "./ledger/network-apis.ts";
import { createLogger } from "./shared/logger.ts";

// The service is loaded only where it serves requests: a supervisor that imported it would hold
// the whole app (Prisma, GraphQL, the Stellar SDK) in memory for nothing.
const serveRequests: typeof import("./serve-requests.ts").serveRequests = async (...args) =>
  (await import("./serve-requests.ts")).serveRequests(...args);

async function main() {
  let config: Config;
  try {
    config = loadConfig(process.env, { demo: process.argv.includes("--demo") });
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
    logger.info("listening", { url, publicUrl: config.publicUrl, database: config.dialect, ledger: config.ledger, networks: ledgerApiSummary(config), workers: config.workers });
    console.log(`Stellar payment service listening on ${url} (public URL ${config.publicUrl}, ${config.dialect}${processes})`);
    console.log(`Stellar networks: ${ledgerApiSummary(config)}`);
    console.log(`Dashboard: ${config.publicUrl}/dashboard/`);
  };
  if (cluster.isWorker) return serveRequests(config, logger, (url) => process.send!({ type: "worker:listening", url } satisfies ListeningMessage));

  const applied = await migrateDatabase(config.databaseUrl);
  if (applied.length) logger.info("migrations applied", { applied });
  if (config.workers > 1) return superviseWorkers(config, logger, announce);
  return serveRequests(config, logger, announce);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
