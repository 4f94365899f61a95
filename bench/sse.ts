// `npx tsx bench/sse.ts`: live-update fan-out and the checkout page's weight.
// - The fan-out (bench/lib/sse-fan-out.ts): BENCH_SSE_SUBSCRIBERS checkout subscriptions (default
//   10,000) over BENCH_SSE_PAYMENTS payments (default 100) on one service process, each payment's
//   completion committed from here; commit -> "paid" frame per subscriber, and memory per subscriber.
// - The page: gzipped JS of the initial load and of the lazy chunks (wallet, QR), and load time in
//   Chromium until the pay buttons show.
// BENCH_SSE_DB=postgresql runs on PostgreSQL (LISTEN/NOTIFY) instead of SQLite (polling).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildCheckoutUi } from "../checkout-ui/build.ts";
import { launchBrowser } from "../test/support/browser.ts";
import { percentile } from "./lib/measure.ts";
import { measureFanOut, prepareDatabase } from "./lib/sse-fan-out.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "./lib/service.ts";

const SUBSCRIBERS = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 10_000);
const PAYMENTS = Number(process.env.BENCH_SSE_PAYMENTS ?? 100);
const DIALECT = process.env.BENCH_SSE_DB === "postgresql" ? "postgresql" : "sqlite";

function pageWeight() {
  const dist = new URL("../checkout-ui/dist/", import.meta.url).pathname;
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const initial = [...html.matchAll(/(?:src|href)="\/c\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const gz = (file: string) => gzipSync(readFileSync(join(dist, file))).length;
  const all = readdirSync(join(dist, "assets")).map((f) => `assets/${f}`);
  const js = (files: string[]) => files.filter((f) => f.endsWith(".js"));
  return {
    initialJsGzip: js(initial).reduce((sum, f) => sum + gz(f), 0),
    allJsGzip: js(all).reduce((sum, f) => sum + gz(f), 0),
    cssGzip: all.filter((f) => f.endsWith(".css")).reduce((sum, f) => sum + gz(f), 0),
  };
}

async function pageLoad() {
  const database = await prepareDatabase(DIALECT);
  const env = serviceEnv(database.url, { LEDGER: "simulated" });
  const { org, database: db } = await prepareMerchant(env);
  await db.close();
  const server = await startServiceProcess(env);
  const browser = await launchBrowser();
  const times: number[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${server.url}/api/v1/payments`, {
        method: "POST",
        headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ amount: "10", description: "Load time" }),
      });
      const { id } = (await res.json()) as { id: string };
      const page = await browser.context.newPage();
      const start = performance.now();
      await page.goto(`${server.url}/c/${id}`);
      await page.getByRole("button", { name: "Pay with a test wallet" }).waitFor();
      if (i > 0) times.push(performance.now() - start); // the first load fills the caches
      await page.close();
    }
  } finally {
    await browser.close();
    await server.stop();
    await database.drop();
  }
  times.sort((a, b) => a - b);
  return { medianMs: percentile(times, 50), maxMs: times[times.length - 1]! };
}

async function main() {
  await buildCheckoutUi({ ifStale: true });
  const fan = await measureFanOut({ dialect: DIALECT, subscribers: SUBSCRIBERS, payments: PAYMENTS });
  const weight = pageWeight();
  const load = await pageLoad();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(`## SSE fan-out (${DIALECT})

| figure | value |
|---|---|
| concurrent checkout subscribers | ${fan.subscribers} over ${fan.payments} payments (${fan.received} got "paid") |
| time to open all (each with its current state) | ${fan.connectSeconds.toFixed(1)} s |
| completion commit -> "paid" frame at each subscriber, p50 (${fan.sequentialEvents} completions one after another) | ${fan.p50.toFixed(0)} ms |
| same, p99 | ${fan.p99.toFixed(0)} ms |
| same, max | ${fan.max.toFixed(0)} ms |
| burst: ${fan.burstEvents} completions committed at once (${fan.burstCommitSeconds.toFixed(1)} s to commit) -> last subscriber has it | ${fan.burstLastMs.toFixed(0)} ms after the last commit |
| service memory per subscriber (RSS growth / N) | ${fan.kibPerSubscriber.toFixed(1)} KiB |

## Checkout page

| figure | value |
|---|---|
| JS on first load, gzipped | ${kb(weight.initialJsGzip)} |
| all JS incl. lazy wallet + QR chunks, gzipped | ${kb(weight.allJsGzip)} |
| CSS, gzipped | ${kb(weight.cssGzip)} |
| load until the pay buttons show (Chromium, median of 5) | ${load.medianMs.toFixed(0)} ms (max ${load.maxMs.toFixed(0)} ms) |
`);
}

await main();
