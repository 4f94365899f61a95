// Whether this process should take traffic, for a load balancer's readiness check (/ready): its
// workers have started, it is not stopping (SIGTERM: the balancer drains it before it closes), its
// database answers and has every migration this code expects. /health, by contrast, only says the
// process is alive.
import type { Deps } from "../context.ts";
import { unappliedMigrations } from "../db/migrate.ts";

import type { NetworkReach } from "../ledger/ledger.ts";

/** Ready, with how each Stellar network is reached (Horizon or Stellar RPC, and whether path payments are quoted). */
export type ReadinessState = { ready: true; networks: NetworkReach[] } | { ready: false; reason: string };

export interface Readiness {
  /** the workers have started: the process may take traffic */
  started(): void;
  /** the process is stopping: the balancer should send nothing new */
  stopping(): void;
  check(): Promise<ReadinessState>;
}

/** A database that does not answer within this is as good as unreachable to a caller. */
const DATABASE_TIMEOUT_MS = 2_000;

export function createReadiness(deps: Pick<Deps, "db">, ledger: { describeNetworks(): NetworkReach[] }): Readiness {
  let state: "starting" | "started" | "stopping" = "starting";

  async function databaseProblem(): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), DATABASE_TIMEOUT_MS)));
    try {
      const unapplied = await Promise.race([unappliedMigrations(deps.db), timeout]);
      if (unapplied === "timeout") return "database not answering";
      return unapplied.length ? `migrations not applied: ${unapplied.join(", ")}` : null;
    } catch {
      return "database unreachable";
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    started: () => void (state = state === "starting" ? "started" : state),
    stopping: () => void (state = "stopping"),
    async check() {
      if (state !== "started") return { ready: false, reason: state };
      const problem = await databaseProblem();
      return problem ? { ready: false, reason: problem } : { ready: true, networks: ledger.describeNetworks() };
    },
  };
}
