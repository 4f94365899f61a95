// A revoked API key is refused on every host within a second, though each host keeps the keys it
// found for a moment (api-keys.store.ts: every request authenticates, and the key row was one query
// of a GET's two). Two real service processes on one PostgreSQL database, as two machines behind a
// load balancer, both answering the key a moment before; the key is revoked by the operator CLI (a
// third process's database client), then both hosts are asked without pause: no request that starts
// more than a second after the revocation is answered. PostgreSQL only (test/vitest.config.ts):
// SQLite serves one host.
import { beforeAll, expect, it, vi } from "vitest";
import type { ChildServer } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { runAdmin } from "./support/admin-cli.ts";
import { fileCleanups } from "./support/file-cleanups.ts";
import { freshDatabaseUrl } from "./support/test-app.ts";

const cleanups = fileCleanups();
// Two service processes start while other files run: seconds of CPU each.
vi.setConfig({ testTimeout: 60_000 });

const WITHIN_MS = 1000;

let hosts: ChildServer[];
let databaseUrl: string;
let org: { organization_id: string; sandbox_api_key: string; live_api_key: string };

beforeAll(async () => {
  const database = await freshDatabaseUrl();
  cleanups.push(() => database.drop());
  databaseUrl = database.url;
  const env = serviceEnv(database.url, { WORKERS: "1", LOG_LEVEL: "silent" });
  const merchant = await prepareMerchant(env);
  cleanups.push(() => merchant.database.close());
  org = merchant.org;
  hosts = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
  cleanups.push(...hosts.map((host) => () => host.stop()));
}, 120_000);

const statusOf = async (host: ChildServer, key: string) =>
  (await fetch(`${host.url}/api/v1/payments?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status;

interface Answer {
  host: number;
  startedMs: number;
  status: number;
}

/** Asks every host in turn, without pause, until `until` ms after `from`; each answer with when it was asked. */
async function askHosts(key: string, from: number, untilMs: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(
    hosts.map(async (host, i) => {
      while (performance.now() - from < untilMs) {
        const startedMs = performance.now() - from;
        answers.push({ host: i, startedMs, status: await statusOf(host, key) });
      }
    }),
  );
  return answers;
}

it("a key revoked by the operator is refused on both hosts within a second, while the other keys go on working", async () => {
  const key = org.live_api_key;
  // Both hosts know the key, as hosts serving a merchant do.
  for (const host of hosts) expect(await statusOf(host, key)).toBe(200);

  const revoked = await runAdmin(["key", "revoke", "--key-prefix", key.slice(0, 16)], databaseUrl);
  expect(revoked.json).toEqual({ ok: true });
  const committed = performance.now();
  const answers = await askHosts(key, committed, WITHIN_MS + 500);

  // Every answer is the key's (200) or its refusal (401); none started a second after the
  // revocation is a 200, and each host was asked then.
  expect(answers.every((a) => a.status === 200 || a.status === 401)).toBe(true);
  const lateAccepted = answers.filter((a) => a.status === 200 && a.startedMs > WITHIN_MS);
  expect(lateAccepted).toEqual([]);
  for (const host of [0, 1]) expect(answers.some((a) => a.host === host && a.startedMs > WITHIN_MS && a.status === 401)).toBe(true);
  // The organization's other key is untouched.
  for (const host of hosts) expect(await statusOf(host, org.sandbox_api_key)).toBe(200);
});

it("a key made elsewhere works at once on both hosts: only keys found are kept", async () => {
  const made = await runAdmin(["key", "create", "--org", org.organization_id, "--environment", "production"], databaseUrl);
  const key: string = made.json.api_key;
  for (const host of hosts) expect(await statusOf(host, key)).toBe(200);
});
