// `npx tsx bench/login-burst.ts`: #30's sign-in figures, against the real service in a child process
// (src/main.ts, WORKERS=1, SQLite or BENCH_DATABASE_URL, TRUST_PROXY so that X-Forwarded-For gives
// each request an address of its own, as behind the operator's proxy).
//   1. 250 logins for one email at once from 250 addresses, one of them with the right password:
//      how many were evaluated (argon2 run: answered UNAUTHENTICATED or signed in), how many refused
//      before any work, and what the right password gets from a new address afterwards (aim: at most
//      the email's budget of 5 evaluated, the right password then RATE_LIMITED).
//   2. 200 logins at once (200 emails, 200 addresses) while a merchant reads a payment by id one
//      request at a time: the service's RSS growth and the merchant's GET p99 during the flood,
//      against the same GETs just before it (aim: < 150 MB growth, p99 < 50 ms).
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createUser } from "../src/modules/users/users.service.ts";
import { systemClock } from "../src/shared/clock.ts";
import { timeOrderedIds } from "../src/shared/ids.ts";
import { percentile } from "./lib/measure.ts";
import { createPayments, startService } from "./lib/service.ts";

const LOGIN = `mutation($email: String!, $password: String!) { login(email: $email, password: $password) { user { id } } }`;
const PASSWORD = "bench password 123";

const service = await startService({ WORKERS: "1", TRUST_PROXY: "true" });
try {
  const database = openDatabase(service.databaseUrl);
  const deps = { db: database.db, config: loadConfig({ DATABASE_URL: service.databaseUrl }), clock: systemClock, ids: timeOrderedIds };
  const email = "burst-owner@example.test";
  await createUser(deps, { organizationId: service.organizationId, email, role: "owner", password: PASSWORD });
  await database.close();

  async function login(emailOf: string, password: string, address: string): Promise<string> {
    const response = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address },
      body: JSON.stringify({ query: LOGIN, variables: { email: emailOf, password } }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
    const error = body.errors?.[0];
    if (!error) return "signed in";
    if (error.extensions?.code === "RATE_LIMITED") return error.message.startsWith("Too many sign-ins at once") ? "argon2 busy" : "over budget";
    return error.extensions?.code ?? "no code";
  }
  const tally = (outcomes: string[]) => outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o]: (t[o] ?? 0) + 1 }), {});

  await login(email, PASSWORD, "10.255.0.1"); // warm-up (JIT, the dummy hash); its success spends nothing

  // 1. One email, 250 addresses, together.
  const rightAt = Math.floor(Math.random() * 250);
  const burst = await Promise.all(Array.from({ length: 250 }, (_, i) => login(email, i === rightAt ? PASSWORD : `wrong guess ${i}`, `198.51.${i >> 8}.${i & 255}`)));
  const counts = tally(burst);
  const evaluated = (counts.UNAUTHENTICATED ?? 0) + (counts["signed in"] ?? 0);
  const after = await login(email, PASSWORD, "203.0.113.99");
  console.log(`${service.databaseName}, one process\n`);
  console.log(`250 logins at once for one email from 250 addresses (right password at #${rightAt}):`);
  console.log(`  evaluated ${evaluated} (budget 5): ${JSON.stringify(counts)}`);
  console.log(`  the right password afterwards, from a new address: ${after}\n`);

  // 2. A flood of 200 logins while a merchant reads.
  const [paymentId] = await createPayments(service, 1);
  async function timedGets(until: () => boolean): Promise<number[]> {
    const times: number[] = [];
    while (!until()) {
      const started = performance.now();
      const response = await fetch(`${service.url}/api/v1/payments/${paymentId}`, { headers: { authorization: `Bearer ${service.liveKey}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
      times.push(performance.now() - started);
    }
    return times;
  }
  const quietUntil = performance.now() + 3_000;
  const quiet = (await timedGets(() => performance.now() > quietUntil)).sort((a, b) => a - b);

  const rssBefore = service.rssMiB()!;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, service.rssMiB() ?? 0)), 20);
  let flooding = true;
  const started = performance.now();
  const flood = Promise.all(Array.from({ length: 200 }, (_, i) => login(`flood-${i}@example.test`, "not anyone's password", `100.64.${i >> 8}.${i & 255}`))).then((outcomes) => {
    flooding = false;
    return outcomes;
  });
  const during = (await timedGets(() => !flooding)).sort((a, b) => a - b);
  const floodCounts = tally(await flood);
  const floodMs = performance.now() - started;
  clearInterval(sampler);

  const ms = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1);
  console.log(`200 logins at once (200 emails, 200 addresses), answered in ${floodMs.toFixed(0)} ms: ${JSON.stringify(floodCounts)}`);
  console.log(`  RSS ${rssBefore.toFixed(0)} MiB before, ${rssPeak.toFixed(0)} MiB at peak: growth ${(rssPeak - rssBefore).toFixed(0)} MiB (aim < 150 MB)`);
  console.log(`  merchant GET /payments/{id}, one at a time: p50 ${ms(quiet, 50)} / p99 ${ms(quiet, 99)} ms before (n=${quiet.length}), p50 ${ms(during, 50)} / p99 ${ms(during, 99)} ms during (n=${during.length}) (aim p99 < 50 ms)`);
} finally {
  await service.stop();
}
