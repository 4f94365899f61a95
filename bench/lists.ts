// `npx tsx bench/lists.ts`: a page of the payments list against one payment by id, on one service
// process (WORKERS=1) holding ~1000 payments, in alternating rounds (list, by id, list, by id, ...)
// so that a machine that gets busier or quieter meanwhile weighs on both alike. Prints each round and
// the median ratio of their rates; the issue asks for GET /payments?limit=20 >= 0.5 of GET by id.
// BENCH_SECONDS / BENCH_CONNECTIONS / BENCH_ROUNDS / BENCH_PAYMENTS override the defaults;
// BENCH_DATABASE_URL=postgresql://... runs the service on PostgreSQL, as bench/run.ts does.
import { measure } from "./lib/measure.ts";
import { startService } from "./lib/service.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const payments = Number(process.env.BENCH_PAYMENTS ?? 1000);

async function main() {
  const service = await startService({ WORKERS: "1", RATE_LIMIT_LIVE: "0", RATE_LIMIT_SANDBOX: "0" });
  try {
    const headers = { authorization: `Bearer ${service.liveKey}` };
    const post = () =>
      fetch(`${service.url}/api/v1/payments`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ amount: "12.5", description: "Bench order", metadata: { order_id: "bench" } }),
      }).then(async (res) => {
        if (res.status !== 201) throw new Error(`creating a payment failed: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { id: string }).id;
      });
    const ids: string[] = [];
    for (let i = 0; i < payments; i += 50) ids.push(...(await Promise.all(Array.from({ length: Math.min(50, payments - i) }, post))));
    const list = `${service.url}/api/v1/payments?limit=20`;
    const byId = `${service.url}/api/v1/payments/${ids[Math.floor(ids.length / 2)]}`;
    const load = (url: string, warmupSeconds: number) => ({ url, headers, connections, seconds, warmupSeconds });
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const warm = round === 1 ? 2 : 0;
      const ofList = await measure(load(list, warm), service);
      const ofId = await measure(load(byId, warm), service);
      if (ofList.failures || ofId.failures) throw new Error(`failed requests: list ${ofList.failures}, by id ${ofId.failures}`);
      ratios.push(ofList.requestsPerSecond / ofId.requestsPerSecond);
      const cpu = (m: { cpuMsPerRequest: number | null }) => (m.cpuMsPerRequest === null ? "?" : m.cpuMsPerRequest.toFixed(3));
      console.log(
        `round ${round}: list ${ofList.requestsPerSecond.toFixed(0)}/s (${cpu(ofList)} ms CPU each), ` +
          `by id ${ofId.requestsPerSecond.toFixed(0)}/s (${cpu(ofId)} ms CPU each), ratio ${ratios.at(-1)!.toFixed(2)}`,
      );
    }
    const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
    console.log(`${service.databaseName}, ${payments} payments, WORKERS=1: GET /payments?limit=20 / GET /payments/{id} = ${median.toFixed(2)} (median of ${rounds} rounds; aim >= 0.5)`);
  } finally {
    await service.stop();
  }
}

await main();
