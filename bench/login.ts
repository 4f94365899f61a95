// `npx tsx bench/login.ts`: what a dashboard login costs, for the argon2id cost in
// src/modules/users/passwords.ts (aim: 50 to 250 ms a login on this machine). The service runs in a
// child process (src/main.ts, WORKERS=1, SQLite or BENCH_DATABASE_URL); one client sends the login
// mutation over HTTP one at a time and prints the round trip (median, p95, max) for a right
// password, a wrong one, and an unknown email: the last two should cost the same, so that timing
// does not tell which emails have accounts. (Failures stay under the login throttle's counts.)
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createUser } from "../src/modules/users/users.service.ts";
import { systemClock } from "../src/shared/clock.ts";
import { timeOrderedIds } from "../src/shared/ids.ts";
import { startService } from "./lib/service.ts";

const RIGHT = Number(process.env.BENCH_LOGINS ?? 20);
/** per kind of failure; twice this stays under the per-address throttle (20 per 15 minutes) */
const FAILURES = 9;
const LOGIN = `mutation($email: String!, $password: String!) { login(email: $email, password: $password) { user { id } } }`;

const service = await startService({ WORKERS: "1" });
try {
  const database = openDatabase(service.databaseUrl);
  const deps = { db: database.db, config: loadConfig({ DATABASE_URL: service.databaseUrl }), clock: systemClock, ids: timeOrderedIds };
  const emails: string[] = [];
  for (let i = 0; i < 3; i++) {
    const email = `bench-${i}@example.test`;
    await createUser(deps, { organizationId: service.organizationId, email, role: "owner", password: "bench password 123" });
    emails.push(email);
  }
  await database.close();

  async function timeLogin(email: string, password: string, expectOk: boolean): Promise<number> {
    const started = performance.now();
    const response = await fetch(`${service.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: LOGIN, variables: { email, password } }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
    const elapsed = performance.now() - started;
    const code = body.errors?.[0]?.extensions?.code;
    if (expectOk ? code !== undefined : code !== "UNAUTHENTICATED") throw new Error(`unexpected answer: ${JSON.stringify(body)}`);
    return elapsed;
  }

  const stats = (times: number[]) => {
    const sorted = [...times].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return `${at(0.5).toFixed(0)} ms | ${at(0.95).toFixed(0)} ms | ${sorted.at(-1)!.toFixed(0)} ms`;
  };

  await timeLogin(emails[0]!, "bench password 123", true); // warm-up: JIT, the dummy hash
  const right: number[] = [];
  for (let i = 0; i < RIGHT; i++) right.push(await timeLogin(emails[i % 3]!, "bench password 123", true));
  const wrong: number[] = [];
  for (let i = 0; i < FAILURES; i++) wrong.push(await timeLogin(emails[i % 3]!, `wrong password ${i}`, false));
  const unknown: number[] = [];
  for (let i = 0; i < FAILURES; i++) unknown.push(await timeLogin(`nobody-${i}@example.test`, "bench password 123", false));

  console.log(`login round trip over HTTP, ${service.databaseName}, argon2id m=64 MiB t=3 p=1\n`);
  console.log("| login | n | median | p95 | max |\n|---|---|---|---|---|");
  console.log(`| right password | ${RIGHT} | ${stats(right)} |`);
  console.log(`| wrong password | ${FAILURES} | ${stats(wrong)} |`);
  console.log(`| unknown email | ${FAILURES} | ${stats(unknown)} |`);
} finally {
  await service.stop();
}
