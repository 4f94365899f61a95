// `npm run bench`: each scenario against the real service, next to a bare node:http hello-world
// given the same request shape, measured in the same run on the same machine, in alternating rounds
// (service, bare, service, bare, ...) so that a machine that gets busier or quieter meanwhile weighs
// on both alike. Prints a markdown table of the median round.
// BENCH_SECONDS / BENCH_CONNECTIONS / BENCH_ROUNDS override the defaults (6 s per measurement after
// a 2 s warm-up, 32 connections, 3 rounds); BENCH_ONLY=text measures only the scenarios whose name
// contains it; BENCH_DATABASE_URL=postgresql://... runs the service on PostgreSQL (a fresh schema,
// dropped after). The service runs as it would by default (WORKERS = the number of CPUs, up to 4);
// WORKERS=1 npm run bench measures a single process against the single bare process.
// Every rate limit is on, each set far above the rate the bench reaches, so the limiter's whole cost
// is paid and nothing is refused; BENCH_RATE_LIMITS=off measures without them, for comparison.
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { type Measurement, measure } from "./lib/measure.ts";
import { startChildServer } from "./lib/processes.ts";
import { startService } from "./lib/service.ts";
import { type BenchRequest, scenarios } from "./scenarios.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const rateLimitsOn = process.env.BENCH_RATE_LIMITS !== "off";
/** Per second, per key and per address: some 50 times what one process answers here. */
const LIMIT_ABOVE_BENCH_RATE = "1000000";
// JIT and Prisma's WebAssembly query compiler need a few hundred requests to reach their fast tiers.
const warmupSeconds = 2;

interface Row {
  name: string;
  aim: number;
  service: Measurement;
  bare: Measurement;
}

const load = (base: string, request: BenchRequest) => ({
  url: `${base}${request.path}`,
  method: request.method,
  headers: request.headers,
  body: request.body,
  requests: request.requests,
  expectStatus: request.expectStatus,
  connections,
  seconds,
  warmupSeconds,
});

const loadBefore = loadavg();

async function main() {
  const bareScript = fileURLToPath(new URL("./lib/bare-server.ts", import.meta.url));
  const bare = await startChildServer(process.execPath, ["--import", "tsx", bareScript]);
  const limit = rateLimitsOn ? LIMIT_ABOVE_BENCH_RATE : "0";
  const service = await startService({ RATE_LIMIT_LIVE: limit, RATE_LIMIT_SANDBOX: limit, RATE_LIMIT_PUBLIC: limit });
  const rows: Row[] = [];
  try {
    const only = process.env.BENCH_ONLY;
    for (const scenario of scenarios.filter((s) => !only || s.name.includes(only))) {
      const request = await scenario.prepare(service);
      const measured: { service: Measurement; bare: Measurement }[] = [];
      for (let round = 1; round <= rounds; round++) {
        process.stderr.write(`measuring ${scenario.name}, round ${round} of ${rounds} ...\n`);
        // Warm-up before the first round only: later rounds find both servers warm.
        const warm = round === 1 ? warmupSeconds : 0;
        const ofService = await measure({ ...load(service.url, request), warmupSeconds: warm }, service);
        // The bare server answers 200 to anything: it gets the first request's shape, once per turn.
        const ofBare = await measure({ ...load(bare.url, { ...request, requests: undefined, expectStatus: undefined }), warmupSeconds: warm }, bare);
        measured.push({ service: ofService, bare: ofBare });
      }
      rows.push({ name: scenario.name, aim: scenario.aim, ...medianRound(measured) });
    }
  } finally {
    await service.stop();
    await bare.stop();
  }
  const limits = rateLimitsOn ? `rate limits on (${LIMIT_ABOVE_BENCH_RATE}/s)` : "rate limits off";
  console.log(renderTable(rows, `${service.databaseName}, ${service.workers} service worker process(es), ${limits}, median of ${rounds} alternating rounds`));
  const broken = rows.filter((r) => r.service.failures > 0 || r.bare.failures > 0);
  if (broken.length) {
    console.error(`failed requests in: ${broken.map((r) => r.name).join(", ")}`);
    process.exit(1);
  }
}

/** The round whose service/bare rate ratio is the median, and the failures of every round. */
function medianRound(measured: { service: Measurement; bare: Measurement }[]): { service: Measurement; bare: Measurement } {
  const sorted = [...measured].sort((a, b) => a.service.requestsPerSecond / a.bare.requestsPerSecond - b.service.requestsPerSecond / b.bare.requestsPerSecond);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const failures = (side: "service" | "bare") => measured.reduce((sum, m) => sum + m[side].failures, 0);
  return { service: { ...median.service, failures: failures("service") }, bare: { ...median.bare, failures: failures("bare") } };
}

function renderTable(rows: Row[], database: string): string {
  const fixed = (n: number, digits = 0) => n.toFixed(digits);
  const lines = [
    `${connections} connections, ${seconds} s per measurement, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}), ` +
      `Node ${process.version}, ${database}; load average before the run ${loadBefore.map((l) => l.toFixed(1)).join(" ")} ` +
      "(figures from a busy machine are low)",
    "",
    "| Request | req/s | p50 ms | p99 ms | CPU ms/req | bare req/s | bare p50 ms | bare p99 ms | bare CPU ms/req | ratio | CPU ratio | aim |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    const ratio = r.service.requestsPerSecond / r.bare.requestsPerSecond;
    const cpu = (m: Measurement) => (m.cpuMsPerRequest === null ? "n/a" : fixed(m.cpuMsPerRequest, 3));
    // bare CPU per request / service CPU per request: the rate ratio a CPU-bound, otherwise idle machine would show
    const cpuRatio =
      r.service.cpuMsPerRequest && r.bare.cpuMsPerRequest ? fixed(r.bare.cpuMsPerRequest / r.service.cpuMsPerRequest, 3) : "n/a";
    lines.push(
      `| ${r.name} | ${fixed(r.service.requestsPerSecond)} | ${fixed(r.service.p50Ms)} | ${fixed(r.service.p99Ms)} | ${cpu(r.service)} | ` +
        `${fixed(r.bare.requestsPerSecond)} | ${fixed(r.bare.p50Ms)} | ${fixed(r.bare.p99Ms)} | ${cpu(r.bare)} | ` +
        `${fixed(ratio, 3)} | ${cpuRatio} | ${ratio >= r.aim ? "≥" : "<"} ${r.aim} |`,
    );
  }
  lines.push("", "ratio: req/s of the service / req/s of the bare server. CPU ratio: bare CPU per request / service CPU per request.");
  return lines.join("\n");
}

await main();
