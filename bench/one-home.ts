// `npm run bench:one-home`: every figure of issue #14 in one run.
// - Throughput, per dialect (SQLite, then PostgreSQL at BENCH_POSTGRES_URL, default the local `test`
//   database): one service process (WORKERS=1) against one bare node:http process, autocannon, in
//   alternating rounds (each request on the service, then on the bare server, round after round), so
//   a machine that gets busier or quieter meanwhile weighs on both alike. POST /payments, GET
//   /payments/{id} and GraphQL payment(id) are ratios to the bare server; the list page
//   (GET /payments?limit=20, ~1,000 payments held) is a ratio to GET by id of the same round.
// - SSE: 10,000 checkout subscribers on one service process, commit -> "paid" frame p99 and memory
//   per subscriber, with the service's server (src/graphql/sse.ts) and with yoga's graphql-sse
//   plugin (bench/lib/yoga-sse-service.ts) one after the other.
// Rate limits are on, far above the bench's rate (as in bench/run.ts), logs at warn.
// BENCH_SECONDS / BENCH_CONNECTIONS / BENCH_ROUNDS (default 5 s, 32, 3); BENCH_DIALECTS=sqlite or
// postgresql picks one; BENCH_SSE=off skips the SSE part, BENCH_SSE=current skips the plugin;
// BENCH_SSE_SUBSCRIBERS (default 10,000).
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { type Measurement, measure } from "./lib/measure.ts";
import { startChildServer } from "./lib/processes.ts";
import { type FanOut, type Dialect, PG_URL, measureFanOut } from "./lib/sse-fan-out.ts";
import { type ServiceUnderTest, benchPaymentBody, createPayments, graphqlPaymentBody, startService } from "./lib/service.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const dialects = (process.env.BENCH_DIALECTS ?? "sqlite,postgresql").split(",") as Dialect[];
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? PG_URL;
const sse = process.env.BENCH_SSE ?? "both";
const subscribers = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 10_000);
const LIMIT_ABOVE_BENCH_RATE = "1000000";
const PAYMENTS_HELD = 1000;

interface Request {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One of #14's figures: `of` is measured against the bare server or another request of the round. */
interface Figure {
  name: string;
  aim: number;
  request: Request;
  against: "bare" | string;
}

async function figuresOf(service: ServiceUnderTest, paymentId: string): Promise<Figure[]> {
  const auth = { authorization: `Bearer ${service.liveKey}` };
  const json = { ...auth, "content-type": "application/json" };
  const byId = "GET /api/v1/payments/{id}";
  return [
    {
      name: "POST /api/v1/payments",
      aim: 0.15,
      against: "bare",
      request: { method: "POST", path: "/api/v1/payments", headers: json, body: benchPaymentBody },
    },
    { name: byId, aim: 0.33, against: "bare", request: { method: "GET", path: `/api/v1/payments/${paymentId}`, headers: auth } },
    { name: "GET /api/v1/payments?limit=20", aim: 0.5, against: byId, request: { method: "GET", path: "/api/v1/payments?limit=20", headers: auth } },
    {
      name: "GraphQL payment(id)",
      aim: 0.2,
      against: "bare",
      request: {
        method: "POST",
        path: "/graphql",
        headers: json,
        body: graphqlPaymentBody(paymentId),
      },
    },
  ];
}

interface Row {
  figure: Figure;
  ratios: number[];
  /** the service's rate and CPU per request, median round */
  rate: number;
  cpuMs: number | null;
}

async function throughput(dialect: Dialect): Promise<Row[]> {
  const bareScript = fileURLToPath(new URL("./lib/bare-server.ts", import.meta.url));
  const bare = await startChildServer(process.execPath, ["--import", "tsx", bareScript]);
  const limit = LIMIT_ABOVE_BENCH_RATE;
  const service = await startService(
    { WORKERS: "1", RATE_LIMIT_LIVE: limit, RATE_LIMIT_SANDBOX: limit, RATE_LIMIT_PUBLIC: limit },
    dialect === "postgresql" ? postgresUrl : undefined,
  );
  try {
    const ids = await createPayments(service, PAYMENTS_HELD);
    const figures = await figuresOf(service, ids[Math.floor(ids.length / 2)]!);
    const rows = new Map<string, Row>(figures.map((figure) => [figure.name, { figure, ratios: [], rate: 0, cpuMs: null }]));
    const perRound = new Map<string, { service: Measurement; bare: Measurement }[]>(figures.map((f) => [f.name, []]));
    for (let round = 1; round <= rounds; round++) {
      const measured = new Map<string, { service: Measurement; bare: Measurement }>();
      for (const figure of figures) {
        process.stderr.write(`${dialect}: ${figure.name}, round ${round} of ${rounds} ...\n`);
        const warmupSeconds = round === 1 ? 2 : 0;
        const load = (base: string) => ({ url: `${base}${figure.request.path}`, ...figure.request, connections, seconds, warmupSeconds });
        const ofService = await measure(load(service.url), service);
        const ofBare = await measure(load(bare.url), bare);
        if (ofService.failures || ofBare.failures) throw new Error(`${figure.name}: ${ofService.failures} failed requests (bare: ${ofBare.failures})`);
        measured.set(figure.name, { service: ofService, bare: ofBare });
        perRound.get(figure.name)!.push({ service: ofService, bare: ofBare });
      }
      for (const figure of figures) {
        const m = measured.get(figure.name)!;
        const base = figure.against === "bare" ? m.bare : measured.get(figure.against)!.service;
        rows.get(figure.name)!.ratios.push(m.service.requestsPerSecond / base.requestsPerSecond);
      }
    }
    for (const row of rows.values()) {
      const median = medianIndex(row.ratios);
      const m = perRound.get(row.figure.name)![median]!;
      row.rate = m.service.requestsPerSecond;
      row.cpuMs = m.service.cpuMsPerRequest;
    }
    return [...rows.values()];
  } finally {
    await service.stop();
    await bare.stop();
  }
}

const medianIndex = (values: number[]) => values.indexOf([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);

function renderThroughput(dialect: Dialect, rows: Row[]): string {
  const lines = [
    `### Throughput, ${dialect === "sqlite" ? "SQLite" : "PostgreSQL"}`,
    "",
    "| figure | against | ratio per round | median | aim | req/s (median round) | CPU ms/req |",
    "|---|---|---|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    const median = r.ratios[medianIndex(r.ratios)]!;
    const against = r.figure.against === "bare" ? "bare node:http" : r.figure.against;
    lines.push(
      `| ${r.figure.name} | ${against} | ${r.ratios.map((x) => x.toFixed(3)).join(", ")} | ${median.toFixed(3)} | ` +
        `${median >= r.figure.aim ? "met" : "missed"} (≥ ${r.figure.aim}) | ${r.rate.toFixed(0)} | ${r.cpuMs === null ? "n/a" : r.cpuMs.toFixed(3)} |`,
    );
  }
  return lines.join("\n");
}

function renderSse(results: { dialect: Dialect; server: string; fan: FanOut }[]): string {
  const lines = [
    `### SSE: ${subscribers} checkout subscribers on one process (aims: p99 < 250 ms, < 64 KiB each)`,
    "",
    "| database | server | got \"paid\" | open all | p50 | p99 | max | burst: last after last commit | KiB per subscriber | aims |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const { dialect, server, fan } of results) {
    const met = fan.received === fan.subscribers && fan.p99 < 250 && fan.kibPerSubscriber < 64;
    lines.push(
      `| ${dialect} | ${server} | ${fan.received} | ${fan.connectSeconds.toFixed(1)} s | ${fan.p50.toFixed(0)} ms | ${fan.p99.toFixed(0)} ms | ` +
        `${fan.max.toFixed(0)} ms | ${fan.burstLastMs.toFixed(0)} ms (${fan.burstEvents} at once) | ${fan.kibPerSubscriber.toFixed(1)} | ${met ? "met" : "missed"} |`,
    );
  }
  return lines.join("\n");
}

async function main() {
  const started = new Date();
  const loadBefore = loadavg();
  const sections: string[] = [];
  for (const dialect of dialects) sections.push(renderThroughput(dialect, await throughput(dialect)));
  if (sse !== "off") {
    const yogaPlugin = fileURLToPath(new URL("./lib/yoga-sse-service.ts", import.meta.url));
    const servers = [
      { server: "src/graphql/sse.ts (graphql-sse handler)", start: undefined },
      ...(sse === "current" ? [] : [{ server: "yoga's graphql-sse plugin", start: (env: Record<string, string>) => startChildServer(process.execPath, ["--import", "tsx", yogaPlugin], env) }]),
    ];
    const results: { dialect: Dialect; server: string; fan: FanOut }[] = [];
    for (const dialect of dialects) {
      for (const { server, start } of servers) {
        process.stderr.write(`${dialect}: SSE fan-out, ${server} ...\n`);
        results.push({ dialect, server, fan: await measureFanOut({ dialect, subscribers, payments: 100, start }) });
      }
    }
    sections.push(renderSse(results));
  }
  console.log(
    [
      `## Issue #14's figures (${started.toISOString().slice(0, 16)} UTC)`,
      "",
      `${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; load average before the run ` +
        `${loadBefore.map((l) => l.toFixed(1)).join(" ")}, after ${loadavg().map((l) => l.toFixed(1)).join(" ")}; ` +
        `${connections} connections, ${seconds} s per measurement, ${rounds} alternating rounds, one service process (WORKERS=1), ` +
        `rate limits on (far above the rate), logs at ${process.env.BENCH_LOG_LEVEL ?? "warn"}.`,
      "",
      ...sections.flatMap((s) => [s, ""]),
    ].join("\n"),
  );
}

await main();
