// `npm run demo` as a newcomer runs it: its own database, apart from `npm start`'s, and the
// organization id and API keys it made printed. Run in a temporary directory, where ./data is new.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_DATABASE_URL, DEMO_DATABASE_URL, loadConfig } from "../src/config.ts";

const root = resolve(import.meta.dirname, "..");
const cwd = mkdtempSync(join(tmpdir(), "demo-"));
let demo: ChildProcess | undefined;

afterAll(() => {
  demo?.kill("SIGKILL");
  rmSync(cwd, { recursive: true, force: true });
});

/** Starts `tsx src/main.ts --demo` (what `npm run demo` runs) and resolves with its output once the demo is ready. */
function runDemo(): Promise<string> {
  return new Promise((done, fail) => {
    demo = spawn(process.execPath, // tsx by path: the temporary directory has no node_modules to find it in.
    ["--import", pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href, join(root, "src/main.ts"), "--demo"], {
      cwd,
      env: { PATH: process.env.PATH!, LEDGER: "simulated", PORT: "0", LOG_LEVEL: "warn" },
    });
    let output = "";
    demo.stdout!.on("data", (chunk) => {
      output += chunk;
      if (/Mail: .*\n/.test(output)) done(output);
    });
    demo.stderr!.on("data", (chunk) => (output += chunk));
    demo.on("exit", (code) => fail(new Error(`demo exited (${code}) before it was ready:\n${output}`)));
  });
}

describe("npm run demo", () => {
  it("defaults to its own database, data/demo.db, unless DATABASE_URL is set", () => {
    expect(loadConfig({}, { demo: true }).databaseUrl).toBe(DEMO_DATABASE_URL);
    expect(DEMO_DATABASE_URL).toBe(`file:${resolve("data", "demo.db")}`);
    expect(DEMO_DATABASE_URL).not.toBe(DEFAULT_DATABASE_URL);
    expect(loadConfig({ DATABASE_URL: "file:/tmp/mine.db" }, { demo: true }).databaseUrl).toBe("file:/tmp/mine.db");
  });

  // A newcomer who ran only `npm run demo` adds a receiver on their own machine as a webhook endpoint:
  // the demo lets it (npm start does not, unless WEBHOOK_ALLOW_PRIVATE=true), and says so.
  it("lets webhooks go to this machine unless WEBHOOK_ALLOW_PRIVATE=false; npm start does not", () => {
    expect(loadConfig({}, { demo: true }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: "false" }, { demo: true }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: "true" }).webhookAllowPrivate).toBe(true);
  });

  it("creates data/demo.db, not npm start's database, and prints the dashboard, an owner to sign in as, the organization and the keys it made", { timeout: 120_000 }, async () => {
    const output = await runDemo();
    expect(output).toContain(`Database:           file:${join(cwd, "data", "demo.db")}`);
    expect(output).toMatch(/^  Organization: +org_[0-9A-Za-z]+$/m);
    expect(output).toMatch(/^  Sandbox API key: +pk_test_[0-9A-Za-z]{32} /m);
    expect(output).toMatch(/^  Live API key: +pk_live_[0-9A-Za-z]{32} /m);
    // Where a webhook may go and where mail goes (no SMTP_URL: to the log, not to the customer).
    expect(output).toMatch(/^  Webhooks: +may go to this machine too /m);
    expect(output).toMatch(/^  Mail: +not sent: each message .* is written to this log instead; set SMTP_URL to send it$/m);
    // The owner it printed signs in to the dashboard it named.
    const dashboard = /^  Dashboard: +(http:\S+)\/dashboard\/$/m.exec(output);
    const signIn = /^  Sign in as: +(\S+) +password (\S+) /m.exec(output);
    expect(dashboard).not.toBeNull();
    expect(signIn).not.toBeNull();
    const url = /listening on (http:\/\/[\w.]+:\d+)/.exec(output)![1]!;
    const login = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation($e: String!, $p: String!) { login(email: $e, password: $p) { user { role } } }`, variables: { e: signIn![1], p: signIn![2] } }),
    });
    expect(await login.json()).toEqual({ data: { login: { user: { role: "owner" } } } });
    expect(existsSync(join(cwd, "data", "demo.db"))).toBe(true);
    expect(existsSync(join(cwd, "data", "stellar-pay.db"))).toBe(false);
  });
});
