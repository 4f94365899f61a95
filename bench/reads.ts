// `npm run bench:reads` (#29): one service process (WORKERS=1) next to a plain reference that does
// only the work each answer needs (bench/lib/reference-*.ts: node:http, SHA-256 of the key, prepared
// statements, the payment JSON by hand; graphql-yoga alone for GraphQL; one INSERT per request for
// POST), on SQLite and then on PostgreSQL, in alternating rounds (service first in odd rounds,
// reference first in even ones) so a machine that gets busier or quieter weighs on both alike.
// Prints, per database, each request's rates, latencies, server CPU per request and the ratio of the
// median round, against #29's aims. Before measuring it checks that the reference answers the same
// bytes as the service (GET by id, list page, GraphQL), so both do the same work.
// BENCH_DATABASES=sqlite or =postgresql runs one; BENCH_DATABASE_URL (default the local server's
// `postgres` database) is where PostgreSQL runs, in a fresh schema dropped after. BENCH_SECONDS,
// BENCH_CONNECTIONS, BENCH_ROUNDS as for bench/run.ts (5 s, 32, 3). Rate limits are on, far above
// the bench's rate, so their cost is paid; logs at warn (BENCH_LOG_LEVEL=info writes request lines).
// BENCH_ONLY=text measures only the requests whose name contains it. BENCH_NODE_ARGS="--cpu-prof
// --cpu-prof-dir=DIR" profiles the service while it is measured.
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { type LoadOptions, type Measurement, measure } from "./lib/measure.ts";
import { type ChildServer, postgresCpuMs, startChildServer } from "./lib/processes.ts";
import { type ServiceUnderTest, benchPaymentBody, createPayments, graphqlPaymentBody, startService } from "./lib/service.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const databases = (process.env.BENCH_DATABASES ?? "sqlite,postgresql").split(",");
const postgresUrl = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const LIMIT_ABOVE_BENCH_RATE = "1000000";
const PAYMENTS = 1000;

interface Scenario {
  name: string;
  /** #29's aim for service rate / reference rate */
  aim: number;
  request: Omit<LoadOptions, "url" | "connections" | "seconds" | "warmupSeconds"> & { path: string };
  reference: ChildServer;
}

interface Row {
  name: string;
  aim: number;
  service: Measurement;
  reference: Measurement;
}

const script = (name: string) => fileURLToPath(new URL(`./lib/${name}`, import.meta.url));
const fixed = (n: number, digits = 0) => n.toFixed(digits);

async function benchDatabase(database: string): Promise<string> {
  const load = loadavg();
  const limit = LIMIT_ABOVE_BENCH_RATE;
  const service = await startService(
    { WORKERS: "1", RATE_LIMIT_LIVE: limit, RATE_LIMIT_SANDBOX: limit, RATE_LIMIT_PUBLIC: limit },
    database === "postgresql" ? postgresUrl : "",
  );
  const children: ChildServer[] = [];
  try {
    const ids = await createPayments(service, PAYMENTS);
    const id = ids[PAYMENTS / 2]!;
    const auth = { authorization: `Bearer ${service.liveKey}` };
    const byId = { path: `/api/v1/payments/${id}`, headers: auth };
    const list = { path: "/api/v1/payments?limit=20", headers: auth };
    const json = { ...auth, "content-type": "application/json" };
    const graphql = { path: "/graphql", method: "POST" as const, headers: json, body: graphqlPaymentBody(id) };
    const create = { path: "/api/v1/payments", method: "POST" as const, headers: json, body: benchPaymentBody, expectStatus: 201 };

    const answered = JSON.parse(await answer(service, byId)) as { checkout_url: string };
    const env = { DATABASE_URL: service.databaseUrl, PUBLIC_URL: answered.checkout_url.slice(0, answered.checkout_url.indexOf("/c/")) };
    const reference = await startChildServer(process.execPath, ["--import", "tsx", script("reference-server.ts")], env);
    children.push(reference);
    const yoga = await startChildServer(process.execPath, ["--import", "tsx", script("reference-yoga-server.ts")], env);
    children.push(yoga);
    for (const [server, request] of [[reference, byId], [reference, list], [yoga, graphql]] as const) await sameBytes(service, server, request);
    for (const server of [service, reference]) await creates(server, create);

    const scenarios: Scenario[] = [
      { name: "GET /payments/{id}", aim: 0.6, request: byId, reference },
      { name: "GET /payments?limit=20 (first page)", aim: 0.75, request: list, reference },
      { name: "GraphQL payment(id) vs graphql-yoga alone", aim: 0.8, request: graphql, reference: yoga },
      // Last: creates add rows, and the list's first page must stay the one checked above.
      { name: "POST /payments vs one INSERT per request", aim: 1.5, request: create, reference },
    ];
    const rows: Row[] = [];
    const only = process.env.BENCH_ONLY;
    for (const scenario of scenarios.filter((s) => !only || s.name.includes(only))) rows.push(await alternate(database, scenario, service));
    const broken = rows.filter((r) => r.service.failures > 0 || r.reference.failures > 0);
    if (broken.length) {
      const sides = (r: Row) => `${r.name} (service ${r.service.failures}, reference ${r.reference.failures})`;
      throw new Error(`failed requests in: ${broken.map(sides).join(", ")}`);
    }
    return renderTable(service, rows, load);
  } finally {
    await Promise.all([service.stop(), ...children.map((c) => c.stop())]);
  }
}

const answer = async (server: { url: string }, { path, ...request }: { path: string; method?: string; headers?: Record<string, string>; body?: string }) =>
  (await fetch(`${server.url}${path}`, request)).text();

/** The reference must answer the very bytes the service does, or it is not doing the same work. */
async function sameBytes(service: ServiceUnderTest, reference: ChildServer, request: Parameters<typeof answer>[1]) {
  const [ours, theirs] = [await answer(service, request), await answer(reference, request)];
  if (ours !== theirs) throw new Error(`the reference answers ${request.path} differently:\nservice:   ${ours}\nreference: ${theirs}`);
}

/** A create answers 201 and a payment of the body's amount. */
async function creates(server: { url: string }, { path, ...request }: Parameters<typeof answer>[1]) {
  const response = await fetch(`${server.url}${path}`, request);
  const body = await response.text();
  if (response.status !== 201 || !body.includes('"object":"payment_intent","amount":"12.5000000"')) {
    throw new Error(`${server.url}${path} did not create a payment: ${response.status} ${body.slice(0, 300)}`);
  }
}

async function alternate(database: string, scenario: Scenario, service: ServiceUnderTest): Promise<Row> {
  const { path, ...request } = scenario.request;
  const options = (server: { url: string }, warmupSeconds: number) => ({ ...request, url: `${server.url}${path}`, connections, seconds, warmupSeconds });
  const measured: { service: Measurement; reference: Measurement }[] = [];
  for (let round = 1; round <= rounds; round++) {
    process.stderr.write(`${database}: ${scenario.name}, round ${round} of ${rounds} ...\n`);
    // JIT, Prisma's query compiler and the pools warm up before the first round only.
    const warm = round === 1 ? 2 : 0;
    // PostgreSQL runs apart: its processes' CPU is the rest of a request's cost.
    const databaseCpu = database === "postgresql" ? postgresCpuMs : undefined;
    const ofService = () => measure(options(service, warm), service, databaseCpu);
    const ofReference = () => measure(options(scenario.reference, warm), scenario.reference, databaseCpu);
    if (round % 2 === 1) {
      const s = await ofService();
      measured.push({ service: s, reference: await ofReference() });
    } else {
      const r = await ofReference();
      measured.push({ service: await ofService(), reference: r });
    }
  }
  const ratio = (m: (typeof measured)[number]) => m.service.requestsPerSecond / m.reference.requestsPerSecond;
  const median = [...measured].sort((a, b) => ratio(a) - ratio(b))[Math.floor(measured.length / 2)]!;
  const failures = (side: "service" | "reference") => measured.reduce((sum, m) => sum + m[side].failures, 0);
  return {
    name: scenario.name,
    aim: scenario.aim,
    service: { ...median.service, failures: failures("service") },
    reference: { ...median.reference, failures: failures("reference") },
  };
}

function renderTable(service: ServiceUnderTest, rows: Row[], loadBefore: number[]): string {
  const ms = (value: number | null) => (value === null ? "n/a" : fixed(value, 3));
  const cpu = (m: Measurement) => (m.databaseCpuMsPerRequest === null ? ms(m.cpuMsPerRequest) : `${ms(m.cpuMsPerRequest)} + ${ms(m.databaseCpuMsPerRequest)}`);
  const lines = [
    `### ${service.databaseName}`,
    "",
    `1 service process, ${connections} connections, ${seconds} s per measurement, median of ${rounds} alternating rounds, ` +
      `${cpus().length} CPU(s), Node ${process.version}; load average before ${loadBefore.map((l) => fixed(l, 1)).join(" ")}, ` +
      `after ${loadavg().map((l) => fixed(l, 1)).join(" ")}`,
    "",
    "| request | service req/s | p50 ms | p99 ms | CPU ms/req | reference req/s | p50 ms | p99 ms | CPU ms/req | ratio | CPU ratio | aim |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    const ratio = r.service.requestsPerSecond / r.reference.requestsPerSecond;
    const cpuRatio = r.service.cpuMsPerRequest && r.reference.cpuMsPerRequest ? fixed(r.reference.cpuMsPerRequest / r.service.cpuMsPerRequest, 3) : "n/a";
    lines.push(
      `| ${r.name} | ${fixed(r.service.requestsPerSecond)} | ${fixed(r.service.p50Ms)} | ${fixed(r.service.p99Ms)} | ${cpu(r.service)} | ` +
        `${fixed(r.reference.requestsPerSecond)} | ${fixed(r.reference.p50Ms)} | ${fixed(r.reference.p99Ms)} | ${cpu(r.reference)} | ` +
        `${fixed(ratio, 3)} | ${cpuRatio} | ${ratio >= r.aim ? "≥" : "<"} ${r.aim} |`,
    );
  }
  return lines.join("\n");
}

const tables: string[] = [];
for (const database of databases) tables.push(await benchDatabase(database));
console.log(
  [
    ...tables,
    "",
    "ratio: service req/s ÷ reference req/s (the median round's). CPU ms/req: the server process's, plus PostgreSQL's processes' where it runs apart. " +
      "CPU ratio: reference CPU per request ÷ service CPU per request (the server process's alone).",
  ].join("\n\n"),
);
