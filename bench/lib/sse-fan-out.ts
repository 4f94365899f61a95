// Live-update fan-out over /graphql/stream, as bench/sse.ts and bench/one-home.ts measure it. The
// service runs in a child process (simulated ledger). This process opens `subscribers` checkout
// subscriptions spread over `payments` payments, each waiting for its current state; then commits
// each payment's completion from here (another process, as a ledger worker would) and times, per
// subscriber, the gap from that commit to the "paid" frame. Memory per subscriber: the child's RSS
// growth / N. Every subscriber comes from loopback, so the service's per-address stream cap
// (SSE_STREAMS_PER_ADDRESS) is raised above N for the run.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { completePayment } from "../../src/modules/payments/payment-completion.ts";
import type { ChildServer } from "./processes.ts";
import { percentile } from "./measure.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "./service.ts";

export type Dialect = "sqlite" | "postgresql";

export interface FanOutOptions {
  dialect: Dialect;
  subscribers: number;
  payments: number;
  /** the server to measure, given the service's environment; src/main.ts by default */
  start?: (env: Record<string, string>) => Promise<ChildServer>;
}

export interface FanOut {
  subscribers: number;
  payments: number;
  /** subscribers that got their "paid" frame */
  received: number;
  sequentialEvents: number;
  burstEvents: number;
  burstCommitSeconds: number;
  burstLastMs: number;
  connectSeconds: number;
  p50: number;
  p99: number;
  max: number;
  kibPerSubscriber: number;
}

const CONNECT_BATCH = 250;
export const PG_URL = "postgresql://postgres@127.0.0.1:5432/test";

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

/** A fresh database: a schema on the local PostgreSQL, or a SQLite file in a temp dir. */
export async function prepareDatabase(dialect: Dialect) {
  if (dialect === "postgresql") {
    const schema = `bench_${randomBytes(4).toString("hex")}`;
    return {
      url: `${PG_URL}?schema=${schema}`,
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
            // A refused subscription (e.g. rate limited) completes without a frame: fail, not wait.
            if (block.startsWith("event: complete") && sub.frames === 0) return reject(new Error(`subscription of ${paymentId} completed without a frame`));
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

/** Starts the server on a fresh database with one merchant, measures the fan-out, stops it all. */
export async function measureFanOut(options: FanOutOptions): Promise<FanOut> {
  const database = await prepareDatabase(options.dialect);
  const env = serviceEnv(database.url, { LEDGER: "simulated", WORKERS: "1", SSE_STREAMS_PER_ADDRESS: String(options.subscribers + 10) });
  const { org, database: db, deps } = await prepareMerchant(env);
  const server = await (options.start ?? startServiceProcess)(env);
  try {
    return await fanOut(server, org.sandbox_api_key, deps, options);
  } finally {
    await server.stop();
    await db.close();
    await database.drop();
  }
}

async function fanOut(server: ChildServer, apiKey: string, deps: Parameters<typeof completePayment>[0], options: FanOutOptions): Promise<FanOut> {
  const { subscribers: count, payments: paymentCount } = options;
  const base = new URL(server.url);
  const payments: string[] = [];
  for (let i = 0; i < paymentCount; i++) {
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
  for (let i = 0; i < count; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, count - i) }, (_, j) => subscribe(base, payments[(i + j) % paymentCount]!));
    subscribers.push(...(await Promise.all(batch)));
  }
  const connectSeconds = (performance.now() - connectStart) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  const rssAfter = rssKiB(server.pid);

  // Each payment's completion commits here, in another process than the service, one at a time:
  // the next commits once every watcher of the previous one has its "paid" frame.
  const byPayment = new Map<string, Subscriber[]>();
  for (const s of subscribers) byPayment.set(s.paymentId, [...(byPayment.get(s.paymentId) ?? []), s]);
  const sequential = payments.slice(0, paymentCount / 2);
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
  const burst = payments.slice(paymentCount / 2);
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
    subscribers: count,
    payments: paymentCount,
    received,
    sequentialEvents: sequential.length,
    burstEvents: burst.length,
    burstCommitSeconds: (burstCommitted - burstStart) / 1000,
    burstLastMs: burstLast,
    connectSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    kibPerSubscriber: (rssAfter - rssBefore) / count,
  };
}
