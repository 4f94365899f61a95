// The operator commands: one table that both dispatch (admin.ts) and help (admin-help.ts) read.
import { existsSync } from "node:fs";
import { ENVIRONMENTS, type Deps, type Environment } from "../context.ts";
import { ROLES } from "../modules/users/roles.ts";
import { MIN_PASSWORD_LENGTH } from "../modules/users/passwords.ts";

// The services (and with them Prisma and the Stellar SDK) load when a command runs, not for its help
// or a usage error: those answered in 2 s, nearly all of it loading modules they never used.
const apiKeys = () => import("../modules/api-keys/api-keys.service.ts");
const organizations = () => import("../modules/organizations/organizations.service.ts");
const users = () => import("../modules/users/users.service.ts");
const webhookEndpoints = () => import("../modules/webhook-endpoints/webhook-endpoints.service.ts");

/** Wrong use of the CLI (as opposed to a refused operation): the message ends with where help is. */
export class UsageError extends Error {}

export interface Flag {
  /** the placeholder shown in help, e.g. ID */
  value: string;
  help: string;
  /** may be left out (flags are required unless they say so) */
  optional?: true;
}

export interface Command {
  summary: string;
  /** every flag is a string, required unless `optional`: a command that needs none has none */
  flags: Record<string, Flag>;
  /** the JSON object printed on the last line of stdout */
  prints: string;
  run: (deps: Deps, flags: Record<string, string>) => Promise<object>;
}

const org: Flag = { value: "ID", help: "organization id (org_..., from `org create` or `org list`)" };
const environmentFlag: Flag = { value: "sandbox|production", help: "sandbox (pk_test_ keys) or production (pk_live_ keys)" };
const ok = '{"ok":true}';

function environment(flags: Record<string, string>): Environment {
  const value = flags.environment!;
  if (!ENVIRONMENTS.includes(value as Environment)) throw new UsageError("--environment must be sandbox or production");
  return value as Environment;
}

export const commands: Record<string, Command> = {
  "org create": {
    summary: "create an organization with a sandbox and a live API key",
    flags: { name: { value: "NAME", help: "the organization's name (shown on its checkout page)" } },
    prints: '{"organization_id":"org_...","sandbox_api_key":"pk_test_...","live_api_key":"pk_live_..."} (the keys are shown only now)',
    run: async (deps, f) => (await organizations()).createOrganization(deps, { name: f.name! }),
  },
  "org list": {
    summary: "list the organizations",
    flags: {},
    prints: '{"organizations":[{"id":"org_...","name":"...","created_at":"<ISO 8601>"}]}',
    run: async (deps) => ({ organizations: await (await organizations()).listOrganizations(deps) }),
  },
  "wallet set": {
    summary: "set the settlement wallet that receives an environment's payments",
    flags: { org, environment: environmentFlag, address: { value: "G...", help: "the wallet's Stellar public key" } },
    prints: ok,
    run: async (deps, f) => {
      await (await organizations()).setSettlementWallet(deps, { organizationId: f.org!, environment: environment(f), address: f.address! });
      return { ok: true };
    },
  },
  "wallet list": {
    summary: "show the settlement wallet and enabled assets of each environment",
    flags: { org },
    prints:
      '{"wallets":[{"environment":"sandbox","settlement_address":"G..." or null,"enabled_assets":[{"code":"XLM","issuer":null},...]},{"environment":"production",...}]}',
    run: async (deps, f) => ({ wallets: await (await organizations()).listSettlementWallets(deps, f.org!) }),
  },
  "asset enable": {
    summary: "let payments of an environment settle in a credit asset (XLM is always enabled)",
    flags: {
      org,
      environment: environmentFlag,
      code: { value: "CODE", help: "asset code, 1 to 12 letters or digits (e.g. USDC)" },
      issuer: { value: "G...", help: "the issuing account's public key" },
    },
    prints: ok,
    run: async (deps, f) => {
      await (await organizations()).enableAsset(deps, { organizationId: f.org!, environment: environment(f), code: f.code!, issuer: f.issuer! });
      return { ok: true };
    },
  },
  "rate set": {
    summary: "set what one unit of an enabled asset costs in a currency (for payments priced in that currency)",
    flags: {
      org,
      environment: environmentFlag,
      currency: { value: "CUR", help: "ISO 4217 code, e.g. USD" },
      asset: { value: "CODE", help: "an enabled asset's code, e.g. USDC or XLM" },
      price: { value: "P", help: "currency units per unit of the asset, a positive decimal with at most 7 places" },
    },
    prints: ok,
    run: async (deps, f) => {
      await (await organizations()).setExchangeRate(deps, {
        organizationId: f.org!,
        environment: environment(f),
        currency: f.currency!,
        assetCode: f.asset!,
        price: f.price!,
      });
      return { ok: true };
    },
  },
  "user create": {
    summary: "create a dashboard user (the first owner of an organization, say)",
    flags: {
      org,
      email: { value: "EMAIL", help: "the address they sign in with (stored lower-cased; one user per address)" },
      role: { value: ROLES.join("|"), help: "owner and admin: everything; developer: API keys and webhooks, reads the rest; viewer: reads" },
      password: {
        value: "PASSWORD",
        help: `at least ${MIN_PASSWORD_LENGTH} characters; left out, one is generated and printed once`,
        optional: true,
      },
    },
    prints: '{"user_id":"usr_...","email":"...","role":"..."} plus "password" when one was generated (shown only now: only its argon2id hash is stored)',
    run: async (deps, f) => {
      const { user, generatedPassword } = await (await users()).createUser(deps, { organizationId: f.org!, email: f.email!, role: f.role!, password: f.password });
      return { user_id: user.id, email: user.email, role: user.role, ...(generatedPassword !== null && { password: generatedPassword }) };
    },
  },
  "user list": {
    summary: "list an organization's dashboard users (never a password or its hash)",
    flags: { org },
    prints: '{"users":[{"id":"usr_...","email":"...","role":"...","created_at":"<ISO 8601>"}]}',
    run: async (deps, f) => {
      await (await organizations()).requireOrganization(deps, f.org!);
      const list = await (await users()).listUsers(deps, f.org!);
      return { users: list.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: u.createdAt.toISOString() })) };
    },
  },
  "key create": {
    summary: "create an API key (an admin key: it may do what an admin may, but for the team and the settlement settings)",
    flags: { org, environment: environmentFlag },
    prints: '{"api_key":"pk_test_..." or "pk_live_..."} (shown only now: only its hash is stored)',
    run: async (deps, f) => {
      await (await organizations()).requireOrganization(deps, f.org!);
      return { api_key: await (await apiKeys()).createApiKey(deps, { organizationId: f.org!, environment: environment(f) }) };
    },
  },
  "key list": {
    summary: "list an organization's API keys by display prefix (never the key itself)",
    flags: { org },
    prints:
      '{"api_keys":[{"id":"key_...","environment":"sandbox","prefix":"pk_test_Ab12Cd34","role":"admin" or "developer","created_at":"<ISO 8601>","revoked_at":null or "<ISO 8601>"}]}',
    run: async (deps, f) => {
      await (await organizations()).requireOrganization(deps, f.org!);
      return { api_keys: await (await apiKeys()).listApiKeys(deps, f.org!) };
    },
  },
  "key revoke": {
    summary: "revoke an API key: requests with it are refused from then on",
    flags: { "key-prefix": { value: "PREFIX", help: "the key's first 16 characters (the prefix `key list` shows)" } },
    prints: ok,
    run: async (deps, f) => {
      await (await apiKeys()).revokeApiKey(deps, { prefix: f["key-prefix"]! });
      return { ok: true };
    },
  },
  // After a key rotation: once this reports nothing unreadable, the old keys can be dropped.
  "webhook-secrets reencrypt": {
    summary: "encrypt every webhook signing secret with the first of WEBHOOK_SECRET_KEYS (after adding a key)",
    flags: {},
    prints: '{"reencrypted":N}; exit 1 if some secrets are encrypted with keys not in WEBHOOK_SECRET_KEYS',
    run: async (deps) => {
      // A key file made here (another directory than the service's) would seal secrets the service cannot open.
      const { webhookSecretKeys, webhookSecretKeyFile } = deps.config;
      if (webhookSecretKeys.length === 0 && !existsSync(webhookSecretKeyFile)) {
        throw new Error(`no key: set WEBHOOK_SECRET_KEYS as the service has it (${webhookSecretKeyFile} does not exist)`);
      }
      const result = await (await webhookEndpoints()).resealWebhookSecrets(deps);
      if (result.unreadable > 0) {
        throw new Error(
          `${result.unreadable} webhook secrets are encrypted with keys that are not configured (${result.missingKeyIds.join(", ")}): ` +
            `add them to WEBHOOK_SECRET_KEYS and run this again (${result.resealed} re-encrypted)`,
        );
      }
      return { reencrypted: result.resealed };
    },
  },
};
