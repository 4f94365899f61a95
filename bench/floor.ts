// `npx tsx bench/floor.ts`: the service's requests that #14 measures, each next to the least it can
// cost on this machine, and the bare hello-world, measured in the same run, so the service's distance
// to what is possible here is known apart from the aim:
// - GET /api/v1/payments/{id} and the list page (GET /payments?limit=20 of 1,000 payments, as
//   bench:one-home holds; its figure is a ratio to GET by id, so the floor's own list/GET ratio says
//   how far that aim is reachable at all) against bench/lib/floor-server.ts (the key, prepared reads,
//   the same JSON);
// - POST /api/v1/payments against the same floor server running the service's own create without
//   its door (no routing, validation, rate limit or scope checks);
// - GraphQL payment(id) against graphql-yoga with nothing of ours (bench/lib/floor-yoga-server.ts).
// Each server is one process (the service with WORKERS=1).
import { fileURLToPath } from "node:url";
import { measure } from "./lib/measure.ts";
import { startChildServer } from "./lib/processes.ts";
import { benchPaymentBody, createPayments, graphqlPaymentBody, startService } from "./lib/service.ts";

const service = await startService({ WORKERS: "1" });
if (!service.databasePath) throw new Error("bench/floor.ts reads the service's SQLite file: run it without BENCH_DATABASE_URL");
const ids = await createPayments(service, 1000);
const id = ids[ids.length / 2]!;
const script = (name: string) => fileURLToPath(new URL(`./lib/${name}`, import.meta.url));
const floor = await startChildServer(process.execPath, ["--import", "tsx", script("floor-server.ts")], { DB_PATH: service.databasePath });
const yogaFloor = await startChildServer(process.execPath, ["--import", "tsx", script("floor-yoga-server.ts")], { DB_PATH: service.databasePath });
const bare = await startChildServer(process.execPath, ["--import", "tsx", script("bare-server.ts")]);

const auth = { authorization: `Bearer ${service.liveKey}` };
const byId = { path: `/api/v1/payments/${id}`, headers: auth };
const list = { path: "/api/v1/payments?limit=20", headers: auth };
const create = {
  path: "/api/v1/payments",
  method: "POST" as const,
  headers: { ...auth, "content-type": "application/json" },
  body: benchPaymentBody,
};
const graphql = {
  path: "/graphql",
  method: "POST" as const,
  headers: { ...auth, "content-type": "application/json" },
  body: graphqlPaymentBody(id),
};
// Each answers what was asked (a GraphQL error would still be a 200): the payment, the newest 20
// (so the list comes before any create), a new payment.
const newest = ((await (await fetch(`${service.url}${list.path}`, { headers: auth })).json()) as { payments: { id: string }[] }).payments[0]!.id;
const servers = [
  ["GET by id: service", service, byId, `"id":"${id}"`],
  ["GET by id: floor", floor, byId, `"id":"${id}"`],
  ["list page: service", service, list, `"id":"${newest}"`],
  ["list page: floor", floor, list, `"id":"${newest}"`],
  ["GraphQL payment(id): service", service, graphql, `"id":"${id}"`],
  ["GraphQL payment(id): yoga floor", yogaFloor, graphql, `"id":"${id}"`],
  ["POST /payments: service", service, create, '"object":"payment_intent","amount":"12.5000000"'],
  ["POST /payments: floor", floor, create, '"object":"payment_intent","amount":"12.5000000"'],
  ["bare hello-world", bare, byId, null],
] as const;

const rows: string[] = [];
const rates = new Map<string, number>();
try {
  for (const [name, server, { path, ...request }, answers] of servers) {
    const answer = await (await fetch(`${server.url}${path}`, request)).text();
    if (answers && (!answer.includes(answers) || answer.includes('"errors"'))) throw new Error(`${name} did not answer ${answers}: ${answer.slice(0, 300)}`);
    const m = await measure({ url: `${server.url}${path}`, ...request, connections: 32, seconds: 6, warmupSeconds: 2 }, server);
    if (m.failures > 0) throw new Error(`${name}: ${m.failures} failed requests`);
    rates.set(name, m.requestsPerSecond);
    rows.push(`| ${name} | ${Math.round(m.requestsPerSecond)} | ${m.cpuMsPerRequest?.toFixed(3) ?? "n/a"} |`);
  }
} finally {
  await Promise.all([service.stop(), floor.stop(), yogaFloor.stop(), bare.stop()]);
}
const ratio = (of: string, to: string) => (rates.get(of)! / rates.get(to)!).toFixed(3);
console.log(
  [
    "| server | req/s | server CPU ms/req |",
    "|---|---:|---:|",
    ...rows,
    "",
    "| ratio | service | floor |",
    "|---|---:|---:|",
    `| POST /payments ÷ hello-world (#14: ≥ 0.15) | ${ratio("POST /payments: service", "bare hello-world")} | ${ratio("POST /payments: floor", "bare hello-world")} |`,
    `| GET by id ÷ hello-world (#14: ≥ 0.33) | ${ratio("GET by id: service", "bare hello-world")} | ${ratio("GET by id: floor", "bare hello-world")} |`,
    `| list page ÷ GET by id (#14: ≥ 0.5) | ${ratio("list page: service", "GET by id: service")} | ${ratio("list page: floor", "GET by id: floor")} |`,
    `| GraphQL payment(id) ÷ hello-world (#14: ≥ 0.20) | ${ratio("GraphQL payment(id): service", "bare hello-world")} | ${ratio("GraphQL payment(id): yoga floor", "bare hello-world")} |`,
  ].join("\n"),
);
