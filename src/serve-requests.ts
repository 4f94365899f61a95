// The service in this process: database -> app -> server -> signals. main.ts calls it in the one
// process (WORKERS=1) or in each worker.
import { buildApp } from "./app.ts";
import { printDemo, setUpDemo } from "./cli/demo.ts";
import type { Config } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { serve } from "./server.ts";
import { systemClock } from "./shared/clock.ts";
import { timeOrderedIds } from "./shared/ids.ts";
import type { Logger } from "./shared/logger.ts";

/** The service itself: this process alone (WORKERS=1) or one of the workers. */
export async function serveRequests(config: Config, logger: Logger, announce: (url: string) => void) {
  const database = openDatabase(config.databaseUrl);
  const app = buildApp({ db: database.db, config, clock: systemClock, ids: timeOrderedIds, logger });
  const server = await serve(app, { port: config.port, host: config.host });
  await app.start({ url: server.url });
  announce(server.url);
  if (process.argv.includes("--demo")) {
    const demo = await setUpDemo({ db: database.db, config, clock: systemClock, ids: timeOrderedIds }, app.ledger);
    printDemo(demo, { publicUrl: config.publicUrl, horizonUrl: `${config.publicUrl}/_sim/horizon` }, config.databaseUrl, {
      webhookAllowPrivate: config.webhookAllowPrivate,
      smtp: config.smtpUrl !== null,
    });
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    // SIGTERM is how orchestrators and supervisors stop a service behind a load balancer: /ready
    // turns 503 and requests are still answered until the balancer has noticed. SIGINT (Ctrl-C) stops at once.
    app.drain();
    if (signal === "SIGTERM" && config.shutdownDrainMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    await server.close();
    await app.stop();
    await database.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}
