// Starts the real app on a fresh database (SQLite file, or a PostgreSQL schema of PG_ADMIN_URL's database,
// chosen by TEST_DIALECT) behind a real HTTP server on 127.0.0.1, and gives tests a small client.
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SCRATCH_DIR } from "./scratch-dir.ts";
import pg from "pg";
import { Keypair } from "@stellar/stellar-sdk";
import { type App, buildApp } from "../../src/app.ts";
import type { AppDeps } from "../../src/context.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { Environment } from "../../src/context.ts";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";
import { createOrganization, setSettlementWallet } from "../../src/modules/organizations/organizations.service.ts";
import { type RunningServer, serve } from "../../src/server.ts";
import type { Clock } from "../../src/shared/clock.ts";
import { timeOrderedIds } from "../../src/shared/ids.ts";
import { type Logger, createLogger } from "../../src/shared/logger.ts";
import { PG_ADMIN_URL } from "./prerequisites.ts";

export const dialect = (process.env.TEST_DIALECT ?? "sqlite") as "sqlite" | "postgresql";

/**
 * The API the ledger suite reaches the simulated network by (TEST_LEDGER_API, set by the vitest
 * projects that run the ledger files again on Stellar RPC): both sources pass the same tests.
 */
export const ledgerApi = (process.env.TEST_LEDGER_API ?? "horizon") as "horizon" | "rpc";

/** The variables that point the test network at a simulated network served at `base` (…/horizon, …/rpc), by the API under test. */
export const testnetEnv = (base: string): Record<string, string> =>
  ledgerApi === "rpc" ? { STELLAR_RPC_TESTNET_URL: `${base}/rpc` } : { HORIZON_TESTNET_URL: `${base}/horizon` };

/** `env` with the ledger API under test, for an app on the simulated network. */
export const onLedgerApi = (env: Record<string, string>): Record<string, string> =>
  env.LEDGER === "simulated" && ledgerApi === "rpc" && env.LEDGER_API === undefined ? { ...env, LEDGER_API: "rpc" } : env;

/** A clock tests move by hand: workers that expire or retry are tested without sleeping. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now() {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number) {
    this.offsetMs += ms;
  }
}

const SQLITE_TEST_DIR = join(SCRATCH_DIR, "stellar-pay-tests");

/** A fresh, migrated database URL of the dialect under test, and how to remove it. */
export async function freshDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  if (dialect === "sqlite") {
    const path = join(SQLITE_TEST_DIR, `${name}.db`);
    const url = `file:${path}`;
    await migrateDatabase(url);
    return { url, drop: async () => ["", "-wal", "-shm"].forEach((suffix) => rmSync(path + suffix, { force: true })) };
  }
  const url = `${PG_ADMIN_URL}?schema=${name}`;
  await migrateDatabase(url);
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await client.end();
    },
  };
}

export interface Merchant {
  organizationId: string;
  sandboxKey: string;
  liveKey: string;
  /** the sandbox settlement wallet (set unless created with { wallet: false }) */
  wallet: Keypair;
}

export interface TestApp {
  url: string;
  app: App;
  deps: AppDeps;
  database: Database;
  clock: TestClock;
  config: Config;
  /** JSON request to the API; `raw` is the exact text of the answer */
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
  graphql(query: string, variables?: Record<string, unknown>, key?: string): Promise<{ status: number; body: any }>;
  createMerchant(options?: { wallet?: boolean; environments?: Environment[] }): Promise<Merchant>;
  close(): Promise<void>;
}

export interface ApiOptions {
  key?: string;
  body?: unknown;
  /** sent as-is instead of JSON.stringify(body) */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  raw: string;
}

/**
 * What most test files share: one app and one merchant for the whole file, closed after its last
 * test. Call it at the top level of the file: `const { t, merchant } = await startTestAppWithMerchant();`
 */
export async function startTestAppWithMerchant(): Promise<{ t: TestApp; merchant: Merchant }> {
  const t = await startTestApp();
  afterAll(() => t.close());
  return { t, merchant: await t.createMerchant() };
}

/** `workers`: start the app's background workers (ledger streamer, expiry sweeper, simulated ledger clock) */
export async function startTestApp(
  options: { env?: Record<string, string>; clock?: TestClock; workers?: boolean; logger?: Logger } = {},
): Promise<TestApp> {
  const database_ = await freshDatabaseUrl();
  const config = loadConfig({
    DATABASE_URL: database_.url,
    PUBLIC_URL: "http://pay.example.test",
    // Every limit off unless a test turns one on: test files call the app from 127.0.0.1 far
    // faster than any payer or merchant would.
    RATE_LIMIT_LIVE: "0",
    RATE_LIMIT_SANDBOX: "0",
    RATE_LIMIT_PUBLIC: "0",
    LOG_LEVEL: "silent",
    ...onLedgerApi(options.env ?? {}),
  });
  const database = openDatabase(config.databaseUrl);
  const clock = options.clock ?? new TestClock();
  const deps: AppDeps = { db: database.db, config, clock, ids: timeOrderedIds, logger: options.logger ?? createLogger(config.logLevel) };
  const app = buildApp(deps);
  const server: RunningServer = await serve(app, { port: 0, host: "127.0.0.1" });
  if (options.workers) await app.start({ url: server.url });

  async function api(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.rawBody;
    if (body === undefined && opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${server.url}/api/v1${path}`, { method, headers, body, redirect: "manual" });
    const raw = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, raw };
  }

  async function graphql(query: string, variables?: Record<string, unknown>, key?: string) {
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: await response.json() };
  }

  async function createMerchant(opts: { wallet?: boolean; environments?: Environment[] } = {}): Promise<Merchant> {
    const org = await createOrganization(deps, { name: "Test Merchant" });
    const wallet = Keypair.random();
    if (opts.wallet !== false) {
      for (const environment of opts.environments ?? ["sandbox", "production"]) {
        await setSettlementWallet(deps, { organizationId: org.organization_id, environment, address: wallet.publicKey() });
      }
    }
    return { organizationId: org.organization_id, sandboxKey: org.sandbox_api_key, liveKey: org.live_api_key, wallet };
  }

  return {
    url: server.url,
    app,
    deps,
    database,
    clock,
    config,
    api,
    graphql,
    createMerchant,
    async close() {
      await server.close();
      await app.stop();
      await database.close();
      await database_.drop();
    },
  };
}
