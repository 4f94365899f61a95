// `npx tsx bench/dashboard.ts`: what the dashboard costs a merchant's browser (#15's and #27's
// figures). The service runs in a child process (src/main.ts, WORKERS=1, SQLite or BENCH_DATABASE_URL)
// with 100 payments; Debian's Chromium over loopback opens /dashboard/payments with a session cookie,
// in a fresh browser context each time (nothing cached), at laptop (1280 px) and phone (390 px) width,
// and the time from navigation to an interactive payments list is printed (median, p95): the first row
// on screen, whose link opens the payment (the list is drawn by the app, so a drawn row is a live one;
// the click proves it). The baseline, in the same rounds: the payer's hosted checkout of one payment
// (its own small bundle and one GraphQL query) to its amount on screen. With the dashboard's initial
// JavaScript gzipped (the entry and every chunk its HTML preloads).
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

  const checkout = (await (
    await fetch(`${service.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.sandboxKey}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "7.5" }),
    })
  ).json()) as { checkout_url: string };

  /** Milliseconds from navigation to `ready` in a fresh context of `width` px (to the moment `ready` returns, if a number). */
  async function timed(width: number, url: string, ready: (page: import("playwright-core").Page) => Promise<unknown>) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    await context.addCookies([{ name, value, domain: hostname, path: "/", httpOnly: true, sameSite: "Lax" }]);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    const readyAt = await ready(page);
    const elapsed = (typeof readyAt === "number" ? readyAt : performance.now()) - started;
    await context.close();
    return elapsed;
  }
  const openFirstPayment = async (page: import("playwright-core").Page) => {
    const link = page.locator("tbody tr a").first();
    await link.waitFor();
    const elapsed = performance.now();
    await link.click();
    await page.getByRole("heading", { level: 1, name: /^Payment / }).waitFor();
    return elapsed;
  };
  const series = { list1280: [] as number[], list390: [] as number[], checkout1280: [] as number[], checkout390: [] as number[] };
  // Alternating rounds, so that a busy moment of the shared machine falls on all four alike.
  for (let run = 0; run < RUNS; run++) {
    for (const width of [1280, 390] as const) {
      // The click's own time is not the list's: navigation → the row that then answers is counted.
      series[`list${width}`].push(await timed(width, `${service.url}/dashboard/payments`, openFirstPayment));
      series[`checkout${width}`].push(await timed(width, `${service.url}${new URL(checkout.checkout_url).pathname}`, (page) => page.getByText("7.5 XLM").first().waitFor()));
    }
  }
  const summary = (times: number[]) => {
    const sorted = [...times].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return { median: at(0.5), text: `median ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms` };
  };
  console.log(`dashboard initial JavaScript, gzipped: ${(gzipped.reduce((a, b) => a + b, 0) / 1024).toFixed(1)} KB (${scripts.map((s, i) => `${s.split("/")[1]} ${(gzipped[i]! / 1024).toFixed(1)} KB`).join(", ")})`);
  console.log(`(${service.databaseName}, port ${port}, ${RUNS} fresh contexts per figure, alternating)`);
  for (const width of [1280, 390] as const) {
    const list = summary(series[`list${width}`]);
    const baseline = summary(series[`checkout${width}`]);
    console.log(`${width} px: payments list interactive after navigation: ${list.text}; baseline, hosted checkout on screen: ${baseline.text}; ratio of medians ${(list.median / baseline.median).toFixed(2)}`);
  }
} finally {
  await browser.close();
  await service.stop();
}
