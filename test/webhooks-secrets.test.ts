// Webhook signing secrets encrypted at rest (issue 13, finding 7: "webhook signing secrets are
// stored in plain text"): AES-256-GCM under WEBHOOK_SECRET_KEYS (first encrypts, all decrypt), a key
// file made on first start when none is configured, plain-text rows of older versions still signing
// and encrypted when the webhook worker starts, and a CLI that re-encrypts so an old key can go.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { directSql } from "../src/db/client.ts";
import { WebhookDispatcher } from "../src/webhooks/dispatcher.ts";
import { secretBoxOf } from "../src/webhooks/secret-box.ts";
import { generateSecret } from "../src/webhooks/signing.ts";
import { verifyWebhook } from "../src/webhooks/verify.ts";
import { waitFor } from "./support/ledger.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";

const root = resolve(import.meta.dirname, "..");
const K1 = randomBytes(32).toString("base64");
const K2 = randomBytes(32).toString("base64");
const K3 = randomBytes(32).toString("hex");

let t: TestApp;
let merchant: Merchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_SECRET_KEYS: K1, WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** The app's configuration with other encryption keys, on the same database. */
const withKeys = (keys: string) =>
  loadConfig({ DATABASE_URL: t.config.databaseUrl, WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_SECRET_KEYS: keys });

/** The secret columns exactly as the database holds them (SQL, not Prisma), of one endpoint or all. */
async function storedRows(id?: string) {
  const rows = await directSql(t.database.db).all(
    `SELECT "secret", "previousSecret" FROM "WebhookEndpoint"${id ? ` WHERE "id" = $1` : ""}`,
    id ? [id] : [],
  );
  return rows as { secret: string; previousSecret: string | null }[];
}

/** The stored columns of one endpoint. */
async function storedSecrets(id: string): Promise<{ secret: string; previousSecret: string | null }> {
  const [row] = await storedRows(id);
  return row!;
}

async function createEndpoint(path: string, key = merchant.sandboxKey) {
  const res = await t.api("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}${path}`, enabled_events: ["payment.created"] } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

/** One payment.created, delivered by `worker`; the request the receiver got at `path`. */
async function deliverOne(path: string, worker: WebhookDispatcher, key = merchant.sandboxKey) {
  const before = receiver.at(path).length;
  expect((await t.api("POST", "/payments", { key, body: { amount: "1" } })).status).toBe(201);
  await worker.runOnce();
  const requests = receiver.at(path);
  expect(requests).toHaveLength(before + 1);
  return requests.at(-1)!;
}

const verifies = (request: { rawBody: string; headers: Record<string, unknown> }, secret: string) => {
  try {
    verifyWebhook(request.rawBody, request.headers as Record<string, string>, secret, { now: t.clock.now() });
    return true;
  } catch {
    return false;
  }
};

const masked = (secret: string) => `whsec_${secret.slice(6, 10)}…${secret.slice(-4)}`;

describe("at rest", () => {
  it("finding 7: secrets are stored encrypted (no whsec_ text in the columns), reads show the masked preview, signatures verify", async () => {
    const endpoint = await createEndpoint("/encrypted");
    const stored = await storedSecrets(endpoint.id);
    const prefix = secretBoxOf(t.config).currentPrefix;
    expect(stored.secret.startsWith(prefix)).toBe(true);
    expect(stored.secret).not.toContain("whsec_");
    expect(stored.secret).not.toContain(endpoint.secret.slice(6));
    const read = await t.api("GET", `/webhook-endpoints/${endpoint.id}`, { key: merchant.sandboxKey });
    expect(read.body.secret).toBe(masked(endpoint.secret));
    const viaGraphql = await t.graphql(`query($id: ID!) { webhookEndpoint(id: $id) { secret } }`, { id: endpoint.id }, merchant.sandboxKey);
    expect(viaGraphql.body.data.webhookEndpoint.secret).toBe(masked(endpoint.secret));

    expect(verifies(await deliverOne("/encrypted", t.app.webhooks), endpoint.secret)).toBe(true);

    // A rotation keeps both secrets encrypted, and both sign during the grace period.
    const rotated = await t.api("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`, { key: merchant.sandboxKey });
    const after = await storedSecrets(endpoint.id);
    expect(after.secret.startsWith(prefix) && after.previousSecret!.startsWith(prefix)).toBe(true);
    expect(after.previousSecret).toBe(stored.secret);
    expect(`${after.secret}${after.previousSecret}`).not.toContain("whsec_");
    const request = await deliverOne("/encrypted", t.app.webhooks);
    expect([verifies(request, rotated.body.secret), verifies(request, endpoint.secret)]).toEqual([true, true]);
    expect(verifies(request, generateSecret())).toBe(false);
  });

  it("finding 7: an Idempotency-Key replay of a secret-revealing answer is stored encrypted and replayed byte for byte", async () => {
    const body = { url: `${receiver.url}/replayed`, enabled_events: ["payment.created"] };
    const headers = { "Idempotency-Key": `create-${randomBytes(4).toString("hex")}` };
    const first = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const rotateHeaders = { "Idempotency-Key": `rotate-${randomBytes(4).toString("hex")}` };
    const rotated = await t.api("POST", `/webhook-endpoints/${first.body.id}/rotate-secret`, { key: merchant.sandboxKey, headers: rotateHeaders });
    expect(rotated.body.secret).toMatch(/^whsec_/);

    const records = (await directSql(t.database.db).all(`SELECT "responseBody" FROM "IdempotencyRecord"`, [])) as { responseBody: string | null }[];
    expect(records.length).toBeGreaterThanOrEqual(2);
    for (const record of records) expect(record.responseBody ?? "").not.toContain("whsec_");

    const replay = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.raw).toBe(first.raw);
    const rotateReplay = await t.api("POST", `/webhook-endpoints/${first.body.id}/rotate-secret`, { key: merchant.sandboxKey, headers: rotateHeaders });
    expect(rotateReplay.raw).toBe(rotated.raw);
  });

  it("finding 7: a rotation of the encryption key keeps old endpoints signing, and re-encryption lets the old key go", async () => {
    const owner = await t.createMerchant();
    const endpoint = await createEndpoint("/key-rotation", owner.sandboxKey);
    const underK1 = await storedSecrets(endpoint.id);

    // The new key first, the old one still there: the endpoint sealed with K1 still signs.
    const rotating = withKeys(`${K2},${K1}`);
    expect(verifies(await deliverOne("/key-rotation", new WebhookDispatcher({ ...t.deps, config: rotating }), owner.sandboxKey), endpoint.secret)).toBe(true);

    // What every process does when it starts with the new keys.
    const { resealWebhookSecrets } = await import("../src/modules/webhook-endpoints/webhook-endpoints.service.ts");
    const result = await resealWebhookSecrets({ ...t.deps, config: rotating });
    expect(result).toMatchObject({ unreadable: 0 });
    expect(result.resealed).toBeGreaterThanOrEqual(1);
    const underK2 = await storedSecrets(endpoint.id);
    expect(underK2.secret.startsWith(secretBoxOf(rotating).currentPrefix)).toBe(true);
    expect(underK2.secret).not.toBe(underK1.secret);

    // K1 dropped: still signing.
    const onlyK2 = withKeys(K2);
    expect(verifies(await deliverOne("/key-rotation", new WebhookDispatcher({ ...t.deps, config: onlyK2 }), owner.sandboxKey), endpoint.secret)).toBe(true);

    // A process that has only the old key sends nothing and says why.
    const stale = new WebhookDispatcher({ ...t.deps, config: withKeys(K1) });
    const sentBefore = receiver.at("/key-rotation").length;
    await t.api("POST", "/payments", { key: owner.sandboxKey, body: { amount: "1" } });
    await stale.runOnce();
    expect(receiver.at("/key-rotation")).toHaveLength(sentBefore);
    const [last] = (await t.api("GET", `/webhook-deliveries?endpoint_id=${endpoint.id}&limit=1`, { key: owner.sandboxKey })).body.webhook_deliveries;
    expect(last).toMatchObject({ status: "pending", response_code: null });
    expect(last.last_error).toMatch(/^the webhook signing secret is encrypted with key [0-9a-f]{8}, which is not configured \(WEBHOOK_SECRET_KEYS\)$/);
  });

  it("finding 7: plain-text secrets of an older version still sign, and are encrypted when the webhook worker starts", async () => {
    const owner = await t.createMerchant();
    const [secret, previous] = [generateSecret(), generateSecret()];
    const now = t.clock.now();
    // A row as a version before encryption wrote it.
    await t.database.db.webhookEndpoint.create({
      data: {
        id: `we_legacy${randomBytes(8).toString("hex")}`,
        organizationId: owner.organizationId,
        environment: "sandbox",
        url: `${receiver.url}/legacy`,
        enabledEvents: JSON.stringify(["payment.created"]),
        secret,
        previousSecret: previous,
        previousSecretExpiresAt: new Date(now.getTime() + 3600_000),
        createdAt: now,
        updatedAt: now,
      },
    });
    const [row] = await t.database.db.webhookEndpoint.findMany({ where: { organizationId: owner.organizationId } });
    const read = await t.api("GET", `/webhook-endpoints/${row!.id}`, { key: owner.sandboxKey });
    expect(read.body.secret).toBe(masked(secret));
    const request = await deliverOne("/legacy", t.app.webhooks, owner.sandboxKey);
    expect([verifies(request, secret), verifies(request, previous)]).toEqual([true, true]);

    const worker = new WebhookDispatcher({ ...t.deps, config: withKeys(K2) });
    worker.start();
    const sealed = await waitFor(() => storedSecrets(row!.id), (s) => !s.secret.startsWith("whsec_"));
    await worker.stop();
    expect(sealed.secret.startsWith(secretBoxOf(withKeys(K2)).currentPrefix)).toBe(true);
    expect(sealed.previousSecret).not.toContain("whsec_");
    expect((await t.api("GET", `/webhook-endpoints/${row!.id}`, { key: owner.sandboxKey })).body.secret).toBe(masked(secret));
    const afterwards = await deliverOne("/legacy", new WebhookDispatcher({ ...t.deps, config: withKeys(K2) }), owner.sandboxKey);
    expect([verifies(afterwards, secret), verifies(afterwards, previous)]).toEqual([true, true]);
  });
});

/** `tsx src/cli/admin.ts ...args` with WEBHOOK_SECRET_KEYS=`keys` on the app's database. */
function admin(args: string[], keys: string, databaseUrl = t.config.databaseUrl): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli/admin.ts", ...args],
      { cwd: root, env: { PATH: process.env.PATH!, DATABASE_URL: databaseUrl, WEBHOOK_SECRET_KEYS: keys }, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe("admin webhook-secrets reencrypt", () => {
  it("encrypts every secret with the first key, and refuses to report success while a key is missing", { timeout: 120_000 }, async () => {
    const endpoint = await createEndpoint("/cli");
    const done = await admin(["webhook-secrets", "reencrypt"], `${K3},${K2},${K1}`);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout.trim().split("\n").at(-1)!).reencrypted).toBeGreaterThanOrEqual(1);
    const prefix = secretBoxOf(withKeys(K3)).currentPrefix;
    for (const row of await storedRows()) {
      expect(row.secret.startsWith(prefix)).toBe(true);
      if (row.previousSecret !== null) expect(row.previousSecret.startsWith(prefix)).toBe(true);
    }
    expect(verifies(await deliverOne("/cli", new WebhookDispatcher({ ...t.deps, config: withKeys(K3) })), endpoint.secret)).toBe(true);

    const again = await admin(["webhook-secrets", "reencrypt"], K3);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout.trim().split("\n").at(-1)!)).toEqual({ reencrypted: 0 });

    const missing = await admin(["webhook-secrets", "reencrypt"], K1);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^\d+ webhook secrets are encrypted with keys that are not configured \([0-9a-f]{8}\): add them to WEBHOOK_SECRET_KEYS/);
    expect(`${missing.stdout}${missing.stderr}`).not.toContain(K1);
  });

  it("makes no key of its own when none is configured and the service's key file is not there", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "stellar-pay-cli-key-"));
    try {
      const result = await admin(["webhook-secrets", "reencrypt"], "", `file:${join(dir, "pay.db")}`);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`no key: set WEBHOOK_SECRET_KEYS as the service has it (${join(dir, "webhook-secret.key")} does not exist)`);
      expect(existsSync(join(dir, "webhook-secret.key"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("with no key configured", () => {
  it("makes a key file (mode 0600) next to the SQLite database on first start, and every later start uses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "stellar-pay-key-"));
    try {
      const first = loadConfig({ DATABASE_URL: `file:${join(dir, "pay.db")}` });
      expect(first.webhookSecretKeyFile).toBe(join(dir, "webhook-secret.key"));
      const sealed = secretBoxOf(first).seal("whsec_example");
      expect((statSync(first.webhookSecretKeyFile).mode & 0o777).toString(8)).toBe("600");
      const key = readFileSync(first.webhookSecretKeyFile, "utf8");
      const second = loadConfig({ DATABASE_URL: `file:${join(dir, "pay.db")}` });
      expect(secretBoxOf(second).open(sealed)).toBe("whsec_example");
      expect(readFileSync(first.webhookSecretKeyFile, "utf8")).toBe(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
