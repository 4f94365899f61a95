// What the operator CLI answers before it opens a database: help, and usage errors (an unknown
// command or flag, a missing flag). The same on either dialect, so run once; that it runs nothing
// is seen in the database it was given, which is never even created.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, describe, expect, it, vi } from "vitest";
import { expectFailure, expectOk, runAdminProcess } from "./support/admin-cli.ts";

// Every command is a fresh process (tsx, Prisma, the Stellar SDK): seconds each on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

const dir = mkdtempSync(join(tmpdir(), "cli-usage-"));
const databasePath = join(dir, "never.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const admin = (args: string[]) => runAdminProcess(args, `file:${databasePath}`);

describe("usage errors: a message on stderr, exit 1, nothing run", () => {
  const address = Keypair.random().publicKey();

  it("a missing flag", async () => {
    const [name, org, prefix] = await Promise.all([
      admin(["org", "create"]),
      admin(["wallet", "set", "--environment", "sandbox", "--address", address]),
      admin(["key", "revoke"]),
    ]);
    expectFailure(name, "--name is required");
    expectFailure(org, "--org is required");
    expectFailure(prefix, "--key-prefix is required");
    expect(existsSync(databasePath)).toBe(false);
  });

  it("an unknown command or flag is named on stderr with where help is", async () => {
    const [command, flag, stray] = await Promise.all([
      admin(["org", "delete"]),
      admin(["org", "create", "--nme", "Typo"]),
      admin(["org", "list", "extra"]),
    ]);
    expectFailure(command, 'unknown command "org delete": see npm run --silent admin -- --help');
    expectFailure(flag, "Unknown option '--nme'");
    expect(flag.stderr).toContain("see npm run --silent admin -- org create --help");
    expectFailure(stray, "see npm run --silent admin -- org list --help");
    expect(existsSync(databasePath)).toBe(false);
  });
});

describe("help: on stdout, exit 0, written from the command table", () => {
  const everyCommand = ["org create", "org list", "wallet set", "wallet list", "asset enable", "rate set", "key create", "key list", "key revoke", "webhook-secrets reencrypt"];

  it("--help, help and no arguments list every command", async () => {
    const results = await Promise.all([admin(["--help"]), admin(["help"]), admin([])]);
    for (const result of results) {
      expectOk(result);
      expect(result.stdout).toContain("usage: npm run --silent admin -- <command>");
      for (const name of everyCommand) expect(result.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    }
    expect(results[1]!.stdout).toBe(results[0]!.stdout);
    expect(results[2]!.stdout).toBe(results[0]!.stdout);
  });

  it("<command> --help shows its flags and what it prints, and runs nothing", async () => {
    const [orgCreate, keyCreate, keyList, group] = await Promise.all([
      admin(["org", "create", "--help"]),
      admin(["key", "create", "--help"]),
      admin(["key", "list", "--org", "org_unknown", "-h"]),
      admin(["key", "--help"]),
    ]);
    for (const result of [orgCreate, keyCreate, keyList, group]) expectOk(result);
    expect(orgCreate.stdout).toContain("usage: npm run --silent admin -- org create --name NAME");
    expect(orgCreate.stdout).toMatch(/^prints: \{"organization_id":"org_\.\.\.","sandbox_api_key":"pk_test_\.\.\."/m);
    expect(keyCreate.stdout).toContain("usage: npm run --silent admin -- key create --org ID --environment sandbox|production");
    expect(keyCreate.stdout).toMatch(/^  --org ID +organization id/m);
    expect(keyCreate.stdout).toMatch(/^prints: \{"api_key":/m);
    expect(keyList.stdout).toContain("usage: npm run --silent admin -- key list --org ID");
    expect(group.stdout).toMatch(/^  key create /m);
    expect(group.stdout).not.toMatch(/^  org create /m);
    expect(existsSync(databasePath)).toBe(false);
  });
});
