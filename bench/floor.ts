// `npx tsx bench/floor.ts`: GET /api/v1/payments/{id} of the service next to the least such a GET
// can cost on this machine (bench/lib/floor-server.ts: hash, two prepared reads, the same JSON) and
// the bare hello-world, measured in the same run, so the service's distance to what is possible
// here is known apart from the aim. The same for GraphQL payment(id): the service's /graphql next to
// graphql-yoga with nothing of ours (bench/lib/floor-yoga-server.ts). Each server is one process
// (the service with WORKERS=1).
import { fileURLToPath } from "node:url";
import { measure } from "./lib/measure.ts";
import { startChildServer } from "./lib/processes.ts";
import { graphqlPaymentBody, startService } from "./lib/service.ts";

const service = await startService({ WORKERS: "1" });
if (!service.databasePath) throw new Error("bench/floor.ts reads the service's SQLite file: run it without BENCH_DATABASE_URL");
const created = await fetch(`${service.url}/api/v1/payments`, {
  method: "POST",
  headers: { authorization: `Bearer ${service.liveKey}`, "content-type": "application/json" },
  body: JSON.stringify({ amount: "12.5" }),
});
const { id } = (await created.json()) as { id: string };
const script = (name: string) => fileURLToPath(new URL(`./lib/${name}`, import.meta.url));
const floor = await startChildServer(process.execPath, ["--import", "tsx", script("floor-server.ts")], { DB_PATH: service.databasePath });
const yogaFloor = await startChildServer(process.execPath, ["--import", "tsx", script("floor-yoga-server.ts")], { DB_PATH: service.databasePath });
const bare = await startChildServer(process.execPath, ["--import", "tsx", script("bare-server.ts")]);

const auth = { authorization: `Bearer ${service.liveKey}` };
const byId = { path: `/api/v1/payments/${id}`, headers: auth };
const graphql = {
  path: "/graphql",
  method: "POST" as const,
  headers: { ...auth, "content-type": "application/json" },
  body: graphqlPaymentBody(id),
};
const servers = [
  ["GET by id: service", service, byId],
  ["GET by id: floor", floor, byId],
  ["GraphQL payment(id): service", service, graphql],
  ["GraphQL payment(id): yoga floor", yogaFloor, graphql],
  ["bare hello-world", bare, byId],
] as const;

const rows: string[] = [];
try {
  for (const [name, server, { path, ...request }] of servers) {
    // Each answers the payment itself (a GraphQL error would still be a 200).
    const answer = await (await fetch(`${server.url}${path}`, request)).text();
    if (server !== bare && (!answer.includes(`"id":"${id}"`) || answer.includes('"errors"'))) throw new Error(`${name} did not answer the payment: ${answer}`);
    const m = await measure({ url: `${server.url}${path}`, ...request, connections: 32, seconds: 6, warmupSeconds: 2 }, server);
    if (m.failures > 0) throw new Error(`${name}: ${m.failures} failed requests`);
    rows.push(`| ${name} | ${Math.round(m.requestsPerSecond)} | ${m.cpuMsPerRequest?.toFixed(3) ?? "n/a"} |`);
  }
} finally {
  await Promise.all([service.stop(), floor.stop(), yogaFloor.stop(), bare.stop()]);
}
console.log(["| server | req/s | server CPU ms/req |", "|---|---:|---:|", ...rows].join("\n"));
