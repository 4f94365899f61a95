// Operator commands. Each prints one JSON object on its last line of stdout and exits 0; on error,
// a message on stderr and exit 1. Uses the same DATABASE_URL as the server (and migrates it first).
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { ENVIRONMENTS, type Deps, type Environment } from "../context.ts";
import { openDatabase } from "../db/client.ts";
import { migrateDatabase } from "../db/migrate.ts";
import { DomainError } from "../errors.ts";
import { createApiKey, revokeApiKey } from "../modules/api-keys/api-keys.service.ts";
import { resealWebhookSecrets } from "../modules/webhook-endpoints/webhook-endpoints.service.ts";
import {
  createOrganization,
  enableAsset,
  requireOrganization,
  setExchangeRate,
  setSettlementWallet,
} from "../modules/organizations/organizations.service.ts";
import { systemClock } from "../shared/clock.ts";
import { timeOrderedIds } from "../shared/ids.ts";

const USAGE = `usage: npm run --silent admin -- <command>
  org create --name NAME
  wallet set --org ID --environment sandbox|production --address G...
  asset enable --org ID --environment sandbox|production --code CODE --issuer G...
  rate set --org ID --environment sandbox|production --currency USD --asset CODE --price P
  key create --org ID --environment sandbox|production
  key revoke --key-prefix PREFIX
  webhook-secrets reencrypt        (encrypts every webhook secret with the first of WEBHOOK_SECRET_KEYS)`;

class UsageError extends Error {}

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function environment(options: Options): Environment {
  const value = required(options, "environment");
  if (!ENVIRONMENTS.includes(value as Environment)) throw new UsageError("--environment must be sandbox or production");
  return value as Environment;
}

const commands: Record<string, (deps: Deps, o: Options) => Promise<object>> = {
  "org create": (deps, o) => createOrganization(deps, { name: required(o, "name") }),
  "wallet set": async (deps, o) => {
    await setSettlementWallet(deps, { organizationId: required(o, "org"), environment: environment(o), address: required(o, "address") });
    return { ok: true };
  },
  "asset enable": async (deps, o) => {
    await enableAsset(deps, {
      organizationId: required(o, "org"),
      environment: environment(o),
      code: required(o, "code"),
      issuer: required(o, "issuer"),
    });
    return { ok: true };
  },
  "rate set": async (deps, o) => {
    await setExchangeRate(deps, {
      organizationId: required(o, "org"),
      environment: environment(o),
      currency: required(o, "currency"),
      assetCode: required(o, "asset"),
      price: required(o, "price"),
    });
    return { ok: true };
  },
  "key create": async (deps, o) => {
    const organizationId = required(o, "org");
    await requireOrganization(deps, organizationId);
    return { api_key: await createApiKey(deps, { organizationId, environment: environment(o) }) };
  },
  "key revoke": async (deps, o) => {
    await revokeApiKey(deps, { prefix: required(o, "key-prefix") });
    return { ok: true };
  },
  // After a key rotation: once this reports nothing unreadable, the old keys can be dropped.
  "webhook-secrets reencrypt": async (deps) => {
    // A key file made here (another directory than the service's) would seal secrets the service cannot open.
    const { webhookSecretKeys, webhookSecretKeyFile } = deps.config;
    if (webhookSecretKeys.length === 0 && !existsSync(webhookSecretKeyFile)) {
      throw new UsageError(`no key: set WEBHOOK_SECRET_KEYS as the service has it (${webhookSecretKeyFile} does not exist)`);
    }
    const result = await resealWebhookSecrets(deps);
    if (result.unreadable > 0) {
      throw new Error(
        `${result.unreadable} webhook secrets are encrypted with keys that are not configured (${result.missingKeyIds.join(", ")}): ` +
          `add them to WEBHOOK_SECRET_KEYS and run this again (${result.resealed} re-encrypted)`,
      );
    }
    return { reencrypted: result.resealed };
  },
};

async function run(argv: string[]): Promise<object> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(
      ["name", "org", "environment", "address", "code", "issuer", "currency", "asset", "price", "key-prefix"].map((n) => [n, { type: "string" as const }]),
    ),
  });
  const command = commands[positionals.slice(0, 2).join(" ")];
  if (!command || positionals.length !== 2) throw new UsageError(USAGE);
  const config = loadConfig();
  await migrateDatabase(config.databaseUrl);
  const database = openDatabase(config.databaseUrl);
  try {
    return await command({ db: database.db, config, clock: systemClock, ids: timeOrderedIds }, values as Options);
  } finally {
    await database.close();
  }
}

run(process.argv.slice(2)).then(
  (result) => {
    console.log(JSON.stringify(result));
  },
  (error: unknown) => {
    const message =
      error instanceof UsageError || error instanceof DomainError
        ? error.message === "Not found" ? "organization not found" : error.message
        : error instanceof Error ? error.message : String(error);
    console.error(message);
    process.exit(1);
  },
);
