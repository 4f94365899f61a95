// `npx tsx bench/sse.ts`: live-update fan-out and the checkout page's weight.
// - The service runs in a child process (src/main.ts, simulated ledger). This process opens
//   BENCH_SSE_SUBSCRIBERS checkout subscriptions (default 10,000) spread over BENCH_SSE_PAYMENTS
//   payments (default 100), each waiting for its current state; then commits each payment's
//   completion from here (another process, as a ledger worker would) and times, per subscriber, the
//   gap from that commit to the "paid" frame. Memory per subscriber: the child's RSS growth / N.
//   Every subscriber comes from loopback, so the service's per-address stream cap
//   (SSE_STREAMS_PER_ADDRESS) is raised above N for this run.
// - The page: gzipped JS of the initial load and of the lazy chunks (wallet, QR), and load time in
//   Chromium until the pay buttons show.
// BENCH_SSE_DB=postgresql runs on PostgreSQL (LISTEN/NOTIFY) instead of SQLite (polling).
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import pg from "pg";
import { buildCheckoutUi } from "../checkout-ui/build.ts";
import { completePayment } from "../src/modules/payments/payment-completion.ts";
import { launchBrowser } from "../test/support/browser.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "./lib/service.ts";

const SUBSCRIBERS = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 10_000);
const PAYMENTS = Number(process.env.BENCH_SSE_PAYMENTS ?? 100);
const CONNECT_BATCH = 250;
const DIALECT = process.env.BENCH_SSE_DB === "postgresql" ? "postgresql" : "sqlite";
const PG_URL = "postgresql://postgres@127.0.0.1:5432/test";

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function prepareDatabase() {
  if (DIALECT === "postgresql") {
    const schema = `bench_${randomBytes(4).toString("hex")}`;
    const url = `${PG_URL}?schema=${schema}`;
    return {
      url,
      drop: async () => {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "stellar-pay-sse-bench-"));
  return { url: `file:${join(dir, "bench.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

interface Subscriber {
  paymentId: string;
  frames: number;
  paidAt: number | null;
  close(): void;
}

const SUBSCRIPTION = "subscription ($id: ID!) { checkout(id: $id) { state receipt { txHash } } }";

/** One SSE subscription over node:http; resolves when the first frame (the current state) arrives. */
function subscribe(base: URL, paymentId: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: SUBSCRIPTION, variables: { id: paymentId } });
    const sub: Subscriber = { paymentId, frames: 0, paidAt: null, close: () => req.destroy() };
    const req = httpRequest(
      { host: base.hostname, port: base.port, path: "/graphql/stream", method: "POST", agent: false,
        headers: { "content-type": "application/json", accept: "text/event-stream", "content-length": Buffer.byteLength(body) } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding("utf8");
        let buffer = "";
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!block.startsWith("event: next")) continue;
            sub.frames++;
            if (sub.frames === 1) resolve(sub);
            if (block.includes('"paid"') && sub.paidAt === null) sub.paidAt = performance.now();
          }
        });
        res.on("error", () => undefined);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function measureFanOut() {
  const database = await prepareDatabase();
  const env = serviceEnv(database.url, { LEDGER: "simulated", SSE_STREAMS_PER_ADDRESS: String(SUBSCRIBERS + 10) });
  const { org, database: db, deps } = await prepareMerchant(env);

  const server = await startServiceProcess(env);
  try {
    return await fanOut(server, org.sandbox_api_key, deps);
  } finally {
    await server.stop();
    await db.close();
    await database.drop();
  }
}

async function fanOut(
  server: { url: string; pid: number },
  apiKey: string,
  deps: Parameters<typeof completePayment>[0],
) {
  const base = new URL(server.url);
  const payments: string[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const res = await fetch(`${server.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "10", description: `Bench ${i}` }),
    });
    payments.push(((await res.json()) as { id: string }).id);
  }
  // Warm up the schema and code paths, then take the baseline.
  (await subscribe(base, payments[0]!)).close();
  await new Promise((r) => setTimeout(r, 500));
  const rssBefore = rssKiB(server.pid);

  const subscribers: Subscriber[] = [];
  const connectStart = performance.now();
  for (let i = 0; i < SUBSCRIBERS; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, SUBSCRIBERS - i) }, (_, j) => subscribe(base, payments[(i + j) % PAYMENTS]!));
    subscribers.push(...(await Promise.all(batch)));
  }
  const connectSeconds = (performance.now() - connectStart) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  const rssAfter = rssKiB(server.pid);

  // Each payment's completion commits here, in another process than the service, one at a time:
  // the next commits once every watcher of the previous one has its "paid" frame.
  const byPayment = new Map<string, Subscriber[]>();
  for (const s of subscribers) byPayment.set(s.paymentId, [...(byPayment.get(s.paymentId) ?? []), s]);
  const sequential = payments.slice(0, PAYMENTS / 2);
  const latencies: number[] = [];
  for (const id of sequential) {
    await completePayment(deps, { id }, { txHash: randomBytes(32).toString("hex") });
    const committed = performance.now();
    const watchers = byPayment.get(id)!;
    const deadline = committed + 30_000;
    while (watchers.some((w) => w.paidAt === null) && performance.now() < deadline) await new Promise((r) => setImmediate(r));
    latencies.push(...watchers.filter((w) => w.paidAt !== null).map((w) => Math.max(0, w.paidAt! - committed)));
  }
  latencies.sort((a, b) => a - b);

  // Then a burst: the other half complete at once, each in its own transaction.
  const burst = payments.slice(PAYMENTS / 2);
  const burstStart = performance.now();
  await Promise.all(burst.map((id) => completePayment(deps, { id }, { txHash: randomBytes(32).toString("hex") })));
  const burstCommitted = performance.now();
  const burstWatchers = burst.flatMap((id) => byPayment.get(id)!);
  const burstDeadline = burstCommitted + 60_000;
  while (burstWatchers.some((w) => w.paidAt === null) && performance.now() < burstDeadline) await new Promise((r) => setTimeout(r, 5));
  const burstLast = Math.max(...burstWatchers.map((w) => w.paidAt ?? Infinity)) - burstCommitted;
  const received = subscribers.filter((s) => s.paidAt !== null).length;
  subscribers.forEach((s) => s.close());
  return {
    subscribers: SUBSCRIBERS,
    payments: PAYMENTS,
    received,
    sequentialEvents: sequential.length,
    burstEvents: burst.length,
    burstCommitSeconds: (burstCommitted - burstStart) / 1000,
    burstLastMs: burstLast,
    connectSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    kibPerSubscriber: (rssAfter - rssBefore) / SUBSCRIBERS,
  };
}

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
  const database = await prepareDatabase();
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
  const fan = await measureFanOut();
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
