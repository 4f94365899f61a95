import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_DATABASE_URL, loadConfig } from "../src/config.ts";
import { ledgerApiSummary } from "../src/ledger/network-apis.ts";

const root = resolve(import.meta.dirname, "..");

describe("loadConfig", () => {
  it("has defaults for everything", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      databaseUrl: DEFAULT_DATABASE_URL,
      dialect: "sqlite",
      publicUrl: "http://localhost:3000",
      rateLimits: { live: 100, sandbox: 25 },
      webhookRetryDelaysSeconds: [60, 300, 1800, 7200, 86400],
      webhookTimeoutMs: 10_000,
      webhookAllowPrivate: false,
      logLevel: "info",
      workers: Math.min(availableParallelism(), 4),
    });
    expect(DEFAULT_DATABASE_URL).toBe(`file:${resolve("data", "stellar-pay.db")}`);
  });

  it("derives PUBLIC_URL from PORT, and the dialect from DATABASE_URL", () => {
    expect(loadConfig({ PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    expect(loadConfig({ PUBLIC_URL: "https://pay.example.com/" }).publicUrl).toBe("https://pay.example.com");
    const pg = loadConfig({ DATABASE_URL: "postgresql://u@db:5432/pay" });
    expect(pg).toMatchObject({ dialect: "postgresql", databaseUrl: "postgresql://u@db:5432/pay" });
    expect(loadConfig({ DATABASE_URL: "file:/tmp/x.db" })).toMatchObject({ dialect: "sqlite", databaseUrl: "file:/tmp/x.db" });
  });

  it("production unless NODE_ENV is development or test; CORS_ORIGINS a list of origins, none by default", () => {
    expect(loadConfig({})).toMatchObject({ production: true, corsOrigins: [], sseStreamsPerAddress: 200 });
    expect(loadConfig({ NODE_ENV: "production" }).production).toBe(true);
    expect(loadConfig({ NODE_ENV: "development" }).production).toBe(false);
    expect(loadConfig({ NODE_ENV: "test" }).production).toBe(false);
    expect(loadConfig({ CORS_ORIGINS: "https://shop.example.com/, http://localhost:5173" }).corsOrigins).toEqual([
      "https://shop.example.com",
      "http://localhost:5173",
    ]);
    expect(() => loadConfig({ CORS_ORIGINS: "*" })).toThrow(/CORS_ORIGINS: must be comma-separated origins/);
    expect(() => loadConfig({ CORS_ORIGINS: "https://shop.example.com/path" })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ SSE_STREAMS_PER_ADDRESS: "0" })).toThrow(/SSE_STREAMS_PER_ADDRESS/);
  });

  it("SMTP_URL an smtp:// or smtps:// URL, none by default (mail goes to the log); MAIL_FROM on PUBLIC_URL's host by default", () => {
    expect(loadConfig({ PUBLIC_URL: "https://pay.acme.example" })).toMatchObject({ smtpUrl: null, mailFrom: "Stellar Pay <no-reply@pay.acme.example>" });
    const configured = loadConfig({ SMTP_URL: "smtp://user:secret@mail.example:587", MAIL_FROM: "Acme <billing@acme.example>" });
    expect(configured).toMatchObject({ smtpUrl: "smtp://user:secret@mail.example:587", mailFrom: "Acme <billing@acme.example>" });
    expect(loadConfig({ SMTP_URL: "smtps://mail.example" }).smtpUrl).toBe("smtps://mail.example");
    for (const bad of ["http://mail.example", "mail.example:25", "smtp://"]) {
      let message = "";
      try {
        loadConfig({ SMTP_URL: bad.replace("mail", "user:hunter2@mail") });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/SMTP_URL: must be smtp:\/\/user:pass@host:port/);
      // The password is never repeated back.
      expect(message).not.toContain("hunter2");
    }
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "" })).toMatchObject({ port: 3000, databaseUrl: DEFAULT_DATABASE_URL });
  });

  it("reports every problem at once", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://x", PUBLIC_URL: "ftp://x", LOG_LEVEL: "loud", RATE_LIMIT_LIVE: "-1" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(5);
    for (const name of ["PORT", "DATABASE_URL", "PUBLIC_URL", "LOG_LEVEL", "RATE_LIMIT_LIVE"]) {
      expect(problems.some((p) => p.startsWith(`${name}:`)), name).toBe(true);
      expect((error as ConfigError).message).toContain(name);
    }
    expect(problems.find((p) => p.startsWith("DATABASE_URL"))).toContain("must be file:<path> or postgresql://...");
  });

  it("runs one process with LEDGER=simulated, whose networks live in it", () => {
    expect(loadConfig({ WORKERS: "3" }).workers).toBe(3);
    expect(loadConfig({ LEDGER: "simulated" }).workers).toBe(1);
    expect(loadConfig({ LEDGER: "simulated", WORKERS: "1" }).workers).toBe(1);
    expect(() => loadConfig({ LEDGER: "simulated", WORKERS: "2" })).toThrow(/WORKERS: must be 1 with LEDGER=simulated/);
  });

  it.each([["PORT", "70000"], ["WORKERS", "0"], ["WORKERS", "two"], ["PORT", "1.5"], ["WEBHOOK_RETRY_DELAYS", "1m,5m"], ["WEBHOOK_ALLOW_PRIVATE", "yes"]])(
    "refuses %s=%s",
    (name, value) => {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    },
  );
});

describe("the server with bad configuration", () => {
  it("exits 1 listing every problem, before touching any database", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: root,
      env: { PATH: process.env.PATH!, PORT: "not-a-port", DATABASE_URL: "mysql://nope", LOG_LEVEL: "chatty" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Invalid configuration");
    for (const name of ["PORT", "DATABASE_URL", "LOG_LEVEL"]) expect(result.stderr).toContain(`${name}:`);
    expect(result.stdout).not.toContain("listening");
  });
});

describe("which API reaches each network (issue 28)", () => {
  it("is Horizon unless the network has a Stellar RPC URL; Horizon then serves path quotes only if its URL is set", () => {
    expect(loadConfig({}).ledgerApis).toEqual({ testnet: { api: "horizon" }, public: { api: "horizon" } });
    const rpcOnly = loadConfig({ STELLAR_RPC_URL: "https://rpc.example.com/v1/0123456789abcdef0123" });
    expect(rpcOnly.ledgerApis).toEqual({ testnet: { api: "horizon" }, public: { api: "rpc", rpcUrl: "https://rpc.example.com/v1/0123456789abcdef0123", horizonUrl: null } });
    const both = loadConfig({ STELLAR_RPC_TESTNET_URL: "https://soroban-testnet.stellar.org", HORIZON_TESTNET_URL: "https://horizon-testnet.stellar.org" });
    expect(both.ledgerApis.testnet).toEqual({ api: "rpc", rpcUrl: "https://soroban-testnet.stellar.org", horizonUrl: "https://horizon-testnet.stellar.org" });
    expect(loadConfig({ LEDGER: "simulated", LEDGER_API: "rpc" }).ledgerApis.public).toMatchObject({ api: "rpc" });
    expect(() => loadConfig({ LEDGER_API: "rpc" })).toThrow(/LEDGER_API: applies to LEDGER=simulated/);
    expect(() => loadConfig({ STELLAR_RPC_URL: "ftp://rpc.example.com" })).toThrow(/STELLAR_RPC_URL/);
  });

  it("says so on the start line, with a provider's key in the URL masked", () => {
    const config = loadConfig({ STELLAR_RPC_URL: "https://rpc.example.com/v1/0123456789abcdef0123" });
    expect(ledgerApiSummary(config)).toBe(
      "sandbox: Horizon https://horizon-testnet.stellar.org; production: Stellar RPC https://rpc.example.com/v1/…, no path payments (no Horizon URL)",
    );
    expect(ledgerApiSummary(loadConfig({ LEDGER: "simulated", LEDGER_API: "rpc" }))).toBe("sandbox: simulated, Stellar RPC; production: simulated, Stellar RPC");
  });
});
