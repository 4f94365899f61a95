// Layers one way (README "Layers"): domain code (services, stores, rules, views, shared, db) knows
// nothing of the doors (REST, GraphQL, pages), the workers or the process that wires them; doors and
// workers know nothing of the process; and no module imports itself back through others.
// `npm run check` runs this.
const DOORS = "^src/(rest|graphql|gate|monitoring)/|^src/modules/[^/]+/[^/]+\\.(rest|graphql|pages|public|live)\\.ts$";
const WORKERS = "^src/webhooks/dispatcher\\.ts$|^src/mail/mail-worker\\.ts$|^src/ledger/(streamer|ledger|account-locks)\\.ts$|^src/modules/payments/expiry-sweeper\\.ts$|^src/modules/retention/retention-purger\\.ts$";
// cluster/coordinator.ts is not here: it is the workers' channel to the supervisor, used like the database.
const PROCESS = "^src/(app|server|main|serve-requests)\\.ts$|^src/cluster/supervisor\\.ts$|^src/cli/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "an import circle ties two layers or modules together", from: {}, to: { circular: true } },
    {
      name: "domain-knows-no-door",
      severity: "error",
      comment: "domain code is called by the doors, never the other way",
      from: { path: "^src/", pathNot: `${DOORS}|${WORKERS}|${PROCESS}|^src/ledger/simulated/` },
      to: { path: `${DOORS}|${WORKERS}|${PROCESS}` },
    },
    {
      name: "simulated-network-stands-alone",
      severity: "error",
      comment:
        "the simulated network plays Stellar and Horizon: written apart from the service (its own amounts, its own checks), it cannot agree with a bug of the service's and hide it from the tests",
      from: { path: "^src/ledger/simulated/" },
      to: { path: "^src/", pathNot: "^src/ledger/simulated/" },
    },
    {
      name: "doors-and-workers-know-no-process",
      severity: "error",
      comment: "app.ts, the server, the cluster and the CLI wire the doors and workers, not the reverse",
      from: { path: `${DOORS}|${WORKERS}` },
      to: { path: PROCESS },
    },
  ],
  options: {
    includeOnly: "^src/",
    exclude: { path: "^src/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
