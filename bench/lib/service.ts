// The real service as a merchant runs it: src/main.ts in a child process, SQLite in a temp dir (the
// embedded default) or, with BENCH_DATABASE_URL=postgresql://..., a fresh schema on that server,
// rate limits off, one organization with keys and a settlement wallet.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { Keypair } from "@stellar/stellar-sdk";
import pg from "pg";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";
import { createOrganization, setSettlementWallet } from "../../src/modules/organizations/organizations.service.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { timeOrderedIds } from "../../src/shared/ids.ts";
import { startChildServer } from "./processes.ts";

export interface ServiceUnderTest {
  url: string;
  /** the SQLite file it serves; null on PostgreSQL */
  databasePath: string | null;
  /** "SQLite" or "PostgreSQL" */
  databaseName: string;
  /** its server processes (WORKERS, from this process's environment or the default) */
  workers: number;
  cpuMs(): number | null;
  rssMiB(): number | null;
  liveKey: string;
  sandboxKey: string;
  /** the organization the keys belong to, and the database, for a bench that writes more of its own */
  organizationId: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** GraphQL `payment(id)` as #14 and #29 measure it (bench:one-home, bench:reads, test/prisma-off-hot-paths.test.ts). */
export const GRAPHQL_PAYMENT_QUERY = "query ($id: ID!) { payment(id: $id) { id amount status description metadata checkoutUrl createdAt expiresAt } }";

/** The body of that query for payment `id`. */
export const graphqlPaymentBody = (id: string): string => JSON.stringify({ query: GRAPHQL_PAYMENT_QUERY, variables: { id } });

/** The body of every bench's POST /payments: a payment as a shop makes one, with a description and metadata. */
export const benchPaymentBody = JSON.stringify({ amount: "12.5", description: "Bench order", metadata: { order_id: "bench" } });

/** `count` payments of the live key, 50 at a time; their ids (within a batch of 50, not in creation order). */
export async function createPayments(service: ServiceUnderTest, count: number): Promise<string[]> {
  const post = async () => {
    const res = await fetch(`${service.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.liveKey}`, "content-type": "application/json" },
      body: benchPaymentBody,
    });
    if (res.status !== 201) throw new Error(`creating a payment failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) ids.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, post))));
  return ids;
}

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** The environment of the service as a child process: on 127.0.0.1, any free port, rate limits off, no drain on SIGTERM. */
export const serviceEnv = (databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  HOST: "127.0.0.1",
  PORT: "0",
  RATE_LIMIT_LIVE: "0",
  RATE_LIMIT_SANDBOX: "0",
  RATE_LIMIT_PUBLIC: "0",
  // Stops at once on SIGTERM: nothing balances load here (a test of draining sets it).
  SHUTDOWN_DRAIN_MS: "0",
  // BENCH_LOG_LEVEL=info measures with the request lines written (the service writes them by default).
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
  ...extra,
});

/**
 * Migrates the database of `env` and writes one organization (its keys) with a settlement wallet in
 * both environments (`wallet`), as the operator CLI would. The database stays open for the caller to close.
 */
export async function prepareMerchant(env: Record<string, string>) {
  const config = loadConfig(env);
  await migrateDatabase(config.databaseUrl);
  const database = openDatabase(config.databaseUrl);
  const deps = { db: database.db, config, clock: systemClock, ids: timeOrderedIds };
  const org = await createOrganization(deps, { name: "Bench Merchant" });
  const wallet = Keypair.random().publicKey();
  for (const environment of ["sandbox", "production"] as const) {
    await setSettlementWallet(deps, { organizationId: org.organization_id, environment, address: wallet });
  }
  return { org, database, deps, wallet };
}

/** src/main.ts in a child process, with `nodeArgs` (e.g. --cpu-prof) for node. */
export const startServiceProcess = (env: Record<string, string>, nodeArgs: string[] = []) =>
  startChildServer(process.execPath, [...nodeArgs, "--import", "tsx", MAIN], env);

/**
 * `extraEnv`: more of the service's environment, e.g. WORKERS. `postgres`: a PostgreSQL server to
 * run on (a fresh schema); SQLite in a temp dir without. `beforeStart`: writes more to the
 * database before the service starts (data it then finds as old, as after a restart).
 */
export async function startService(
  extraEnv: Record<string, string> = {},
  postgres = process.env.BENCH_DATABASE_URL,
  beforeStart?: (env: Record<string, string>, merchant: Awaited<ReturnType<typeof prepareMerchant>>) => Promise<void>,
): Promise<ServiceUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), "stellar-pay-bench-"));
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const env = serviceEnv(postgres ? withSchema(postgres, schema) : `file:${join(dir, "bench.db")}`, extraEnv);
  const merchant = await prepareMerchant(env);
  const { org, database } = merchant;
  try {
    await beforeStart?.(env, merchant);
  } finally {
    await database.close();
  }

  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service while it is measured.
  const server = await startServiceProcess(env, (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean));
  return {
    url: server.url,
    databasePath: postgres ? null : join(dir, "bench.db"),
    databaseName: postgres ? "PostgreSQL" : "SQLite",
    workers: loadConfig({ ...process.env, ...env }).workers,
    cpuMs: server.cpuMs,
    rssMiB: server.rssMiB,
    liveKey: org.live_api_key,
    sandboxKey: org.sandbox_api_key,
    organizationId: org.organization_id,
    databaseUrl: env.DATABASE_URL!,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
      if (postgres) await dropSchema(postgres, schema);
    },
  };
}

function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("schema", schema);
  return parsed.toString();
}

async function dropSchema(url: string, schema: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
