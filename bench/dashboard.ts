// `npx tsx bench/dashboard.ts`: what the dashboard costs a merchant's browser (#15's figures). The
// service runs in a child process (src/main.ts, WORKERS=1, SQLite or BENCH_DATABASE_URL) with 100
// payments; Debian's Chromium over loopback opens /dashboard/payments with a session cookie, in a
// fresh browser context each time (nothing cached), and the time from navigation to the first row
// of the list on screen is printed (median, p95), with the dashboard's initial JavaScript gzipped.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { buildCheckoutUi } from "../checkout-ui/build.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createUser } from "../src/modules/users/users.service.ts";
import { systemClock } from "../src/shared/clock.ts";
import { timeOrderedIds } from "../src/shared/ids.ts";
import { CHROMIUM_PATH } from "../test/support/prerequisites.ts";
import { startService } from "./lib/service.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const DIST = new URL("../checkout-ui/dist/", import.meta.url).pathname;

await buildCheckoutUi({ ifStale: true });
const html = readFileSync(`${DIST}dashboard/index.html`, "utf8");
const scripts = [...html.matchAll(/(?:src|href)="\/c\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
const gzipped = scripts.map((path) => gzipSync(readFileSync(`${DIST}${path}`), { level: 9 }).length);

const service = await startService({ WORKERS: "1" });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
try {
  const database = openDatabase(service.databaseUrl);
  const deps = { db: database.db, config: loadConfig({ DATABASE_URL: service.databaseUrl }), clock: systemClock, ids: timeOrderedIds };
  await createUser(deps, { organizationId: service.organizationId, email: "bench@example.test", role: "owner", password: "bench password 123" });
  await database.close();
  for (let i = 0; i < 100; i++) {
    const created = await fetch(`${service.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.sandboxKey}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: `${i + 1}.5` }),
    });
    if (created.status !== 201) throw new Error(`creating a payment answered ${created.status}`);
  }
  const login = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation { login(email: "bench@example.test", password: "bench password 123") { user { id } } }` }),
  });
  const [name, value] = login.headers.get("set-cookie")!.split(";")[0]!.split("=") as [string, string];
  const { hostname, port } = new URL(service.url);

  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name, value, domain: hostname, path: "/", httpOnly: true, sameSite: "Lax" }]);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${service.url}/dashboard/payments`);
    await page.locator("tbody tr a").first().waitFor();
    times.push(performance.now() - started);
    await context.close();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(0);
  console.log(`dashboard initial JavaScript, gzipped: ${(gzipped.reduce((a, b) => a + b, 0) / 1024).toFixed(1)} KB (${scripts.map((s, i) => `${s.split("/")[1]} ${(gzipped[i]! / 1024).toFixed(1)} KB`).join(", ")})`);
  console.log(`payments list on screen after navigation (${service.databaseName}, port ${port}, ${RUNS} fresh contexts): median ${at(0.5)} ms, p95 ${at(0.95)} ms`);
} finally {
  await browser.close();
  await service.stop();
}
