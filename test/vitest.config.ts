// Every database test runs twice: once on SQLite, once on PostgreSQL (database `test`, a fresh schema
// per test file). Tests that touch no database (*.nodb.test.ts) run once.
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const root = new URL("..", import.meta.url).pathname;
const dbTests = { include: ["test/**/*.test.ts"], exclude: ["test/**/*.nodb.test.ts", "**/node_modules/**"] };
// Files that need an app, and so a database, but test nothing of it: SQLite only. GraphiQL is a page
// of the installed package in Chromium; the query it runs is an ordinary one (graphql.test.ts).
// The background statements' plans matter on SQLite, where a slow one stops the process. The refund
// screens are pages in Chromium; refunds on both dialects are refunds.test.ts. So are the forms' words,
// the screens' fit at both widths and the address's state: pages over GraphQL calls that the API's
// own files test on both dialects (words-for-people, payment-search, lists). So is the dashboard's
// tour (dashboard.test.ts, two minutes of Chromium a dialect): its calls are the graphql-*, api-key,
// webhooks, invoices and two-factor files' on both dialects, and a screen following the live feed is
// dashboard-live.test.ts on both (the feed's own PostgreSQL path, LISTEN/NOTIFY: live-updates.test.ts).
// The same holds of the invitation, mail and first-hour screens (invitations, mail, mail-notices and
// graphql-settings on both dialects). The payer's pages (checkout-page, checkout-pay) stay on both.
const sqliteOnly = [
  "test/dashboard.test.ts",
  "test/dashboard-invites.test.ts",
  "test/dashboard-mail.test.ts",
  "test/dashboard-first-run.test.ts",
  "test/graphiql.test.ts",
  "test/background-plans.test.ts",
  "test/refunds-ui.test.ts",
  "test/dashboard-forms.test.ts",
  "test/dashboard-screens.test.ts",
  "test/dashboard-url-state.test.ts",
];
// Several hosts share one database only on PostgreSQL (SQLite serves one host).
const postgresqlOnly = ["test/instances.test.ts", "test/api-key-revocation.test.ts"];
// Files that get fresh modules of their own (isolate): "keeps serving while Horizon is down" passes
// alone but timed out in full runs after some other file of the same worker (module state carried
// over by isolate: false, not yet found; see the session note).
const isolated = ["test/ledger-restart.test.ts"];
// The ledger suite again with the Stellar RPC source (TEST_LEDGER_API=rpc, test/support/test-app.ts):
// both sources pass the same tests (issue 28). The checkout's path quotes are Horizon's only.
// Refunds: recognized from the stream's payments out, claimable balances included (RPC's transfer into one).
// The slowest of them run with RPC on one dialect each, to keep CI under 20 minutes: the kills
// (crash.test.ts: the ledger's part of it, the completion killed before its commit, in one process;
// ledger-restart.test.ts) on PostgreSQL (the production database), refunds on SQLite; what they test
// of the source is the same on both (the cursor and the payments are written by the same code), and
// all run on both dialects with Horizon.
const ledgerSuite = ["test/ledger-verification.test.ts", "test/ledger-wallets.test.ts"];
const sqliteLedgerSuite = [...ledgerSuite, "test/refunds.test.ts"];
const postgresqlLedgerSuite = [...ledgerSuite, "test/crash.test.ts"];

/**
 * The files that take longest (each starts service processes or a browser; in the order of their
 * time in a full run) start first, both dialects' at once; vitest would start one project's files
 * after the other's, and leave the last of these to run alone at the end (in a run of 2026-11-28 the
 * ledger restarts and refunds started at 19 of its 20 minutes). The rest follow project by project,
 * so that a worker goes on with the app it has loaded.
 */
const LONGEST = [
  // first beside the kills, which mostly wait (on a delivery's lease): the machine's cores stay busy
  "test/dashboard.test.ts",
  "test/crash.test.ts",
  "test/cluster.test.ts",
  "test/dashboard-screens.test.ts",
  "test/dashboard-forms.test.ts",
  "test/dashboard-url-state.test.ts",
  "test/dashboard-invites.test.ts",
  "test/ledger-restart.test.ts",
  "test/mail-crash.test.ts",
  "test/refunds-ui.test.ts",
  "test/refunds.test.ts",
  "test/dashboard-auth.test.ts",
  "test/cli-usage.nodb.test.ts",
  "test/dashboard-roles.test.ts",
  "test/dashboard-first-run.test.ts",
  "test/ledger-rpc-faults.test.ts",
  "test/refunds-crash.test.ts",
  "test/instances.test.ts",
  "test/webhooks-secrets.test.ts",
];
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const rank = (file: TestSpecification) => {
      const i = LONGEST.findIndex((path) => file.moduleId.endsWith(path));
      return i === -1 ? LONGEST.length : i;
    };
    return (await super.sort(files)).map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}

export default defineConfig({
  // graphql 16 has no "exports" map: Node loads its CommonJS build for the libraries (Pothos, yoga),
  // while Vite would pick the ESM build for our sources, and two copies of graphql refuse each
  // other's types. Make our sources use the same build as the libraries, as they do in production.
  resolve: { alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }] },
  test: {
    root,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run side by side, from both dialects at once: a test spends much of its time waiting on
    // PostgreSQL, a child process or a timer, so one file more than there are cores keeps them busy
    // (vitest's default is one fewer: a single file at a time on a 2-core machine).
    maxWorkers: availableParallelism() + 1,
    // A worker runs file after file of its project without loading the app's modules again for
    // each (seconds of CPU per file). Every file still starts its own app on its own database.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: "sqlite", ...dbTests, exclude: [...dbTests.exclude, ...postgresqlOnly, ...isolated], env: { TEST_DIALECT: "sqlite" } } },
      {
        extends: true,
        test: { name: "postgresql", ...dbTests, exclude: [...dbTests.exclude, ...sqliteOnly, ...isolated], env: { TEST_DIALECT: "postgresql" } },
      },
      { extends: true, test: { name: "sqlite-isolated", include: isolated, isolate: true, env: { TEST_DIALECT: "sqlite" } } },
      { extends: true, test: { name: "postgresql-isolated", include: isolated, isolate: true, env: { TEST_DIALECT: "postgresql" } } },
      { extends: true, test: { name: "sqlite-rpc", include: sqliteLedgerSuite, env: { TEST_DIALECT: "sqlite", TEST_LEDGER_API: "rpc" } } },
      { extends: true, test: { name: "postgresql-rpc", include: postgresqlLedgerSuite, env: { TEST_DIALECT: "postgresql", TEST_LEDGER_API: "rpc" } } },
      { extends: true, test: { name: "postgresql-isolated-rpc", include: isolated, isolate: true, env: { TEST_DIALECT: "postgresql", TEST_LEDGER_API: "rpc" } } },
      { extends: true, test: { name: "nodb", include: ["test/**/*.nodb.test.ts"] } },
    ],
  },
});
