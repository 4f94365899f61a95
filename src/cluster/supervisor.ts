// WORKERS > 1: this primary process serves no request itself. It forks the workers, each the whole
// service (src/main.ts) on the one shared port (Node's cluster hands connections out in turn), keeps
// what they must agree on (coordinator.ts, and on SQLite the rate-limit counts), replaces a worker
// that dies, and stops them all on SIGTERM or SIGINT. A worker that dies before it listens (port
// taken, database unreachable) would die again: the service stops instead, with exit code 1.
import cluster, { type Worker } from "node:cluster";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import type { Logger } from "../shared/logger.ts";
import { serveCoordinator } from "./coordinator.ts";

/** What a worker sends its primary once its server listens. */
export interface ListeningMessage {
  type: "worker:listening";
  url: string;
}

/** A worker that has not stopped this long after SIGTERM is killed. */
const STOP_GRACE_MS = 15_000;

export function superviseWorkers(config: Config, logger: Logger, announce: (url: string) => void) {
  const coordinator = serveCoordinator();
  // On SQLite the workers' rate-limit counts live here (PostgreSQL keeps them in the database).
  if (config.dialect === "sqlite") new RateLimiterClusterMaster();
  const live = new Set<Worker>();
  const listening = new Set<Worker>();
  let announced = false;
  let stopping = false;
  let exitCode = 0;

  const fork = () => live.add(cluster.fork());
  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    if (live.size === 0) process.exit(exitCode);
    for (const worker of live) worker.process.kill("SIGTERM");
    setTimeout(() => {
      for (const worker of live) worker.process.kill("SIGKILL");
    }, STOP_GRACE_MS).unref();
  };

  cluster.on("message", (worker, message: ListeningMessage) => {
    if (message?.type !== "worker:listening") return;
    listening.add(worker);
    if (!announced && listening.size === config.workers) {
      announced = true;
      announce(message.url);
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    live.delete(worker);
    coordinator.forgetWorker(worker);
    const hadStarted = listening.delete(worker);
    if (stopping) {
      if (live.size === 0) process.exit(exitCode);
    } else if (!hadStarted) {
      logger.error("a worker failed to start; stopping the service", { pid: worker.process.pid, code, signal });
      stopAll(1);
    } else {
      logger.error("a worker exited; starting another", { pid: worker.process.pid, code, signal });
      fork();
    }
  });
  process.on("SIGTERM", () => stopAll(0));
  process.on("SIGINT", () => stopAll(0));
  for (let i = 0; i < config.workers; i++) fork();
}
