// What the worker processes of one service (WORKERS > 1) must agree on, kept by the primary process
// and asked for over Node's IPC channel: on SQLite, which worker streams which settlement wallet
// (PostgreSQL has advisory locks for that). A worker's locks go with it when it exits, so another
// worker takes its wallets over; and the metrics of all workers, gathered for the one that answers
// /metrics (src/monitoring/metrics.ts). (Rate limits have their own channel: src/gate/rate-limit.ts.)
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";

interface Call {
  type: "coordinator:call";
  id: number;
  method: keyof Coordinator;
  args: unknown[];
}

interface Result {
  type: "coordinator:result";
  id: number;
  result: unknown;
}

/** The questions a worker can ask; every answer is plain JSON. */
export interface Coordinator {
  tryLock(key: string): boolean;
  unlock(key: string): void;
  /** every worker's metrics, added up, as Prometheus text */
  clusterMetrics(): string;
}

/** The primary's side: answers every worker's calls. `forgetWorker` frees the locks of a worker that exited. */
export function serveCoordinator(): { forgetWorker(worker: Worker): void } {
  const lockHolders = new Map<string, number>();
  const metrics = new AggregatorRegistry();
  const answer = (worker: Worker, call: Call): unknown => {
    switch (call.method) {
      case "tryLock": {
        const key = call.args[0] as string;
        const holder = lockHolders.get(key);
        if (holder !== undefined && holder !== worker.id) return false;
        lockHolders.set(key, worker.id);
        return true;
      }
      case "unlock": {
        const key = call.args[0] as string;
        if (lockHolders.get(key) === worker.id) lockHolders.delete(key);
        return null;
      }
      case "clusterMetrics":
        return metrics.clusterMetrics();
    }
  };
  cluster.on("message", (worker, message: Call) => {
    if (message?.type !== "coordinator:call") return;
    void Promise.resolve(answer(worker, message))
      .catch((error: unknown) => `# metrics could not be gathered: ${String(error)}\n`)
      .then((result) => {
        const reply: Result = { type: "coordinator:result", id: message.id, result };
        // A worker that is gone has nothing left to answer.
        if (worker.isConnected()) worker.send(reply);
      });
  });
  return {
    forgetWorker(worker) {
      for (const [key, holder] of lockHolders) if (holder === worker.id) lockHolders.delete(key);
    },
  };
}

let client: { [K in keyof Coordinator]: (...args: Parameters<Coordinator[K]>) => Promise<ReturnType<Coordinator[K]>> } | null = null;

/** The worker's side, or null in a process that is not a cluster worker (WORKERS=1, tests, the CLI). */
export function coordinatorClient() {
  if (!cluster.isWorker) return null;
  if (client) return client;
  let nextId = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  process.on("message", (message: Result) => {
    if (message?.type !== "coordinator:result") return;
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  });
  // A worker whose primary is gone exits (Node's cluster does that), so no call waits forever.
  const call = <T>(method: keyof Coordinator, args: unknown[]) =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve as (result: unknown) => void);
      process.send!({ type: "coordinator:call", id, method, args } satisfies Call);
    });
  client = {
    tryLock: (key) => call<boolean>("tryLock", [key]),
    unlock: (key) => call<void>("unlock", [key]),
    clusterMetrics: () => call<string>("clusterMetrics", []),
  };
  return client;
}
