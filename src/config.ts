// The only reader of process.env. Every problem is reported at once, then the process exits.
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { decodeSecretKey } from "./webhooks/secret-box.ts";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const port = z.coerce.number().int().min(0).max(65535);
const requestsPerSecond = z.coerce.number().min(0);

const envSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .refine((v) => v.startsWith("file:") || /^postgres(ql)?:\/\//.test(v), "must be file:<path> or postgresql://...")
    .optional(),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  LEDGER: z.enum(["horizon", "simulated"]).default("horizon"),
  // Unset: SDF's Horizon, unless the network has a Stellar RPC URL (then Horizon, set, serves path quotes only).
  HORIZON_TESTNET_URL: z.url().optional(),
  HORIZON_PUBLIC_URL: z.url().optional(),
  // Stellar RPC instead of Horizon: the public network's (production) and the test network's (sandbox).
  STELLAR_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  STELLAR_RPC_TESTNET_URL: z.url({ protocol: /^https?$/ }).optional(),
  // Which API the built-in simulated networks are reached by (LEDGER=simulated: they speak both).
  LEDGER_API: z.enum(["horizon", "rpc"]).optional(),
  // How often Stellar RPC's getEvents is polled once caught up (ledgers close every ~5 s on Stellar).
  STELLAR_RPC_POLL_MS: z.coerce.number().int().min(50).default(1000),
  // An RPC call unanswered this long has failed (a hung node must not stall the stream); retried with backoff.
  STELLAR_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  SIM_LEDGER_CLOSE_MS: z.coerce.number().int().min(10).default(1000),
  RATE_LIMIT_LIVE: requestsPerSecond.default(100),
  RATE_LIMIT_SANDBOX: requestsPerSecond.default(25),
  // Points per second per address for anonymous callers (src/gate/rate-limit.ts): a payer spends a
  // few points in their busiest second, so 50 leaves room for several payers behind one NAT, while
  // a flood of a few hundred requests a second from one address is refused within its first second.
  RATE_LIMIT_PUBLIC: requestsPerSecond.default(50),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .regex(/^\d+(,\d+)*$/, "must be comma-separated whole seconds")
    .default("60,300,1800,7200,86400"),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  // Unset: false, but true for `npm run demo`, whose webhooks go to a receiver on the same machine.
  WEBHOOK_ALLOW_PRIVATE: bool.optional(),
  WEBHOOK_SECRET_KEYS: z
    .string()
    .transform((v) => v.split(",").map((key) => key.trim()).filter(Boolean))
    .refine((keys) => keys.every((key) => decodeSecretKey(key)), "each key must be 32 bytes, as base64 or 64 hex digits (openssl rand -base64 32)")
    .optional(),
  // Retention (src/modules/retention/): days that fanned-out events and succeeded webhook
  // deliveries are kept; 0 keeps them forever. 30 days, as Stripe keeps events.
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  TRUST_PROXY: bool.default(false),
  /** tests only: the process kills itself at this point (src/shared/crash-point.ts) */
  TEST_CRASH_AT: z.enum(["completion-before-commit", "refund-before-answer"]).optional(),
  NODE_ENV: z.string().optional(),
  CORS_ORIGINS: z
    .string()
    .refine((v) => v.split(",").every((o) => /^https?:\/\/[^/\s]+\/?$/.test(o.trim())), "must be comma-separated origins like https://shop.example.com")
    .optional(),
  SSE_STREAMS_PER_ADDRESS: z.coerce.number().int().min(1).default(200),
  // The issue names smtp://user:pass@host:port; smtps:// is the same over TLS from the first byte.
  SMTP_URL: z
    .string()
    .refine((v) => URL.canParse(v) && /^smtps?:$/.test(new URL(v).protocol) && new URL(v).hostname !== "", "must be smtp://user:pass@host:port or smtps://...")
    .optional(),
  MAIL_FROM: z.string().min(3).optional(),
  MAIL_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  // A scraper's bearer token; at least 16 characters so it cannot be guessed like a word.
  METRICS_TOKEN: z.string().min(16).optional(),
  // On SIGTERM /ready answers 503 this long before the server closes, so a load balancer's health
  // checks (commonly every 5 s) take the process out of rotation while it still answers.
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(5_000),
});

export type Dialect = "sqlite" | "postgresql";

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  dialect: Dialect;
  publicUrl: string;
  ledger: "horizon" | "simulated";
  horizonUrls: { testnet: string; public: string };
  /**
   * Per network, how it is reached: Horizon at horizonUrls, or Stellar RPC at its URL, with Horizon
   * at `horizonUrl` for path quotes only (null: none, the checkout offers only the settlement asset).
   * With LEDGER=simulated only `api` counts (the simulated networks' own URLs).
   */
  ledgerApis: Record<"testnet" | "public", { api: "horizon" } | { api: "rpc"; rpcUrl: string; horizonUrl: string | null }>;
  /** how often Stellar RPC is polled for new events once caught up */
  rpcPollMs: number;
  /** how long a Stellar RPC call may take before it counts as failed */
  rpcTimeoutMs: number;
  simLedgerCloseMs: number;
  /** per second: per API key (live, sandbox) and per address of anonymous callers (public); 0 is off */
  rateLimits: { live: number; sandbox: number; public: number };
  webhookRetryDelaysSeconds: number[];
  webhookTimeoutMs: number;
  /** webhooks may target loopback, private, link-local and metadata addresses (their answers are never kept) */
  webhookAllowPrivate: boolean;
  /** keys that encrypt webhook signing secrets at rest: the first encrypts, all decrypt; empty: the key file */
  webhookSecretKeys: Buffer[];
  /** the key made on first start when no key is configured: next to the SQLite database, else in ./data */
  webhookSecretKeyFile: string;
  /**
   * Days kept before the retention purger deletes them, 0 for ever: events that are fanned out and
   * have no delivery left, and succeeded webhook deliveries with their attempts.
   */
  retentionDays: { events: number; deliveries: number };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** server processes; more than one runs as a cluster under a primary process (src/cluster/) */
  workers: number;
  /** behind a reverse proxy: the caller's address is the last X-Forwarded-For entry */
  trustProxy: boolean;
  /** tests only (TEST_CRASH_AT): where the process kills itself, to test recovery from a crash */
  testCrashAt: "completion-before-commit" | "refund-before-answer" | null;
  /** NODE_ENV other than development or test: anonymous callers get no introspection or field suggestions */
  production: boolean;
  /** origins other than the service's own that may call /graphql from a browser (CORS); none by default */
  corsOrigins: string[];
  /** open /graphql/stream streams per caller address, per process */
  sseStreamsPerAddress: number;
  /** where mail goes (SMTP_URL, with its password: never log it); null writes each message to the log instead */
  smtpUrl: string | null;
  /** the From of every message */
  mailFrom: string;
  /** each wait of an SMTP exchange (connecting, the greeting, any answer); a mail worker's lease follows from it */
  mailTimeoutMs: number;
  /** the bearer token that opens /metrics to any address; null: loopback callers only */
  metricsToken: string | null;
  /** after SIGTERM, how long /ready answers 503 (the balancer drains) before the server closes */
  shutdownDrainMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/**
 * The default is a worker per CPU, up to 4: each worker holds ~200 MB, and on SQLite their writes
 * take turns, so more only pays for reads. WORKERS sets any number.
 */
const DEFAULT_MAX_WORKERS = 4;

export const DEFAULT_DATABASE_URL = `file:${resolve("data", "stellar-pay.db")}`;
/** `npm run demo`'s own database: its demo organization and payments stay out of `npm start`'s. */
export const DEMO_DATABASE_URL = `file:${resolve("data", "demo.db")}`;

/** `demo`: the process runs `npm run demo` (main.ts --demo), whose database defaults to DEMO_DATABASE_URL. */
export function loadConfig(env: Record<string, string | undefined> = process.env, options: { demo?: boolean } = {}): Config {
  // Empty variables count as unset, as shells and .env files often leave them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const e = parsed.data;
  // The simulated networks live in one process's memory: every request to them must reach it.
  if (e.LEDGER === "simulated" && e.WORKERS !== undefined && e.WORKERS > 1) {
    throw new ConfigError(["WORKERS: must be 1 with LEDGER=simulated (its simulated networks live in one process)"]);
  }
  if (e.LEDGER_API !== undefined && e.LEDGER !== "simulated") {
    throw new ConfigError(["LEDGER_API: applies to LEDGER=simulated; a real network uses Stellar RPC when STELLAR_RPC_URL (public) or STELLAR_RPC_TESTNET_URL (test) is set"]);
  }
  const apiOf = (rpcUrl: string | undefined, horizonUrl: string | undefined): Config["ledgerApis"]["public"] => {
    if (e.LEDGER === "simulated") return e.LEDGER_API === "rpc" ? { api: "rpc", rpcUrl: "", horizonUrl: null } : { api: "horizon" };
    return rpcUrl ? { api: "rpc", rpcUrl, horizonUrl: horizonUrl ?? null } : { api: "horizon" };
  };
  const databaseUrl = e.DATABASE_URL ?? (options.demo ? DEMO_DATABASE_URL : DEFAULT_DATABASE_URL);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl,
    dialect: databaseUrl.startsWith("file:") ? "sqlite" : "postgresql",
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    ledger: e.LEDGER,
    horizonUrls: { testnet: e.HORIZON_TESTNET_URL ?? "https://horizon-testnet.stellar.org", public: e.HORIZON_PUBLIC_URL ?? "https://horizon.stellar.org" },
    ledgerApis: { testnet: apiOf(e.STELLAR_RPC_TESTNET_URL, e.HORIZON_TESTNET_URL), public: apiOf(e.STELLAR_RPC_URL, e.HORIZON_PUBLIC_URL) },
    rpcPollMs: e.STELLAR_RPC_POLL_MS,
    rpcTimeoutMs: e.STELLAR_RPC_TIMEOUT_MS,
    simLedgerCloseMs: e.SIM_LEDGER_CLOSE_MS,
    rateLimits: { live: e.RATE_LIMIT_LIVE, sandbox: e.RATE_LIMIT_SANDBOX, public: e.RATE_LIMIT_PUBLIC },
    webhookRetryDelaysSeconds: e.WEBHOOK_RETRY_DELAYS.split(",").map(Number),
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? options.demo === true,
    webhookSecretKeys: (e.WEBHOOK_SECRET_KEYS ?? []).map((key) => decodeSecretKey(key)!),
    webhookSecretKeyFile: resolve(databaseUrl.startsWith("file:") ? dirname(databaseUrl.slice("file:".length).split("?")[0]!) : "data", "webhook-secret.key"),
    retentionDays: { events: e.EVENT_RETENTION_DAYS, deliveries: e.WEBHOOK_DELIVERY_RETENTION_DAYS },
    logLevel: e.LOG_LEVEL,
    workers: e.LEDGER === "simulated" ? 1 : (e.WORKERS ?? Math.min(availableParallelism(), DEFAULT_MAX_WORKERS)),
    trustProxy: e.TRUST_PROXY,
    testCrashAt: e.TEST_CRASH_AT ?? null,
    production: e.NODE_ENV !== "development" && e.NODE_ENV !== "test",
    corsOrigins: e.CORS_ORIGINS ? e.CORS_ORIGINS.split(",").map((o) => o.trim().replace(/\/+$/, "")) : [],
    sseStreamsPerAddress: e.SSE_STREAMS_PER_ADDRESS,
    smtpUrl: e.SMTP_URL ?? null,
    mailTimeoutMs: e.MAIL_TIMEOUT_MS,
    metricsToken: e.METRICS_TOKEN ?? null,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    mailFrom: e.MAIL_FROM ?? `Stellar Pay <no-reply@${new URL(e.PUBLIC_URL ?? "http://localhost").hostname}>`,
  };
}
