// `npx tsx bench/graphql-bounds.ts`: what a refused GraphQL operation costs (issue 13, finding 1).
// The service runs in a child process (src/main.ts, SQLite, or BENCH_DATABASE_URL). One client sends
// each operation BENCH_BOUNDS_REQUESTS times (default 300) over one keep-alive connection, in
// alternating rounds, and reports the round trip per request (median and p99) beside two baselines
// measured in the same run: `{ __typename }` with the same API key (the key lookup and HTTP, no other
// work) and a one-row `payments` page (what one database read adds). A refused operation that costs
// what `{ __typename }` costs did no database work; the refused deep mutation also shows that
// nothing executed: the customers it asks to create are counted afterwards.
import { percentile } from "./lib/measure.ts";
import { startService } from "./lib/service.ts";

const REQUESTS = Number(process.env.BENCH_BOUNDS_REQUESTS ?? 300);
const ROUNDS = 5;

const loop = (steps: string[], count: number) => {
  let selection = "__typename";
  for (let level = count - 1; level >= 0; level--) selection = `${steps[level % steps.length]} { ${selection} }`;
  return selection;
};
const FROM_QUERY = ["payments(first: 100)", "edges", "node", "customer"];

const OPERATIONS: { name: string; query: string; key: boolean; refused: boolean }[] = [
  { name: "`{ __typename }` (baseline: key lookup, no other work)", query: "{ __typename }", key: true, refused: false },
  { name: "`payments(first: 1)` (baseline: one database read)", query: "{ payments(first: 1) { edges { node { id } } } }", key: true, refused: false },
  {
    name: "refused: 1,000 aliases of `payments(first: 100)`",
    query: `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: payments(first: 100) { edges { node { id } } }`).join(" ")} }`,
    key: true,
    refused: true,
  },
  {
    name: "refused: 1,000 anonymous `checkout(id:)` aliases",
    query: `{ ${Array.from({ length: 1000 }, (_, i) => `c${i}: checkout(id: "pay_${i}") { state }`).join(" ")} }`,
    key: false,
    refused: true,
  },
  { name: "refused: a 50-deep query (payments -> customer -> payments ...)", query: `{ ${loop(FROM_QUERY, 49)} }`, key: true, refused: true },
  {
    name: "refused: a 50-deep `createCustomer` mutation",
    query: `mutation { createCustomer(input: { name: "Deep" }) { ${loop(["payments", "edges", "node", "customer"], 48)} } }`,
    key: true,
    refused: true,
  },
  {
    name: "refused by cost: two nested pages of 100",
    query: "{ payments(first: 100) { edges { node { customer { payments(first: 100) { edges { node { id } } } } } } } }",
    key: true,
    refused: true,
  },
];


async function main() {
  const service = await startService();
  try {
    const send = async (operation: (typeof OPERATIONS)[number]) => {
      const response = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(operation.key && { authorization: `Bearer ${service.sandboxKey}` }) },
        body: JSON.stringify({ query: operation.query }),
      });
      return (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
    };
    // Each answer is what it should be before anything is timed.
    for (const operation of OPERATIONS) {
      const answer = await send(operation);
      const refused = answer.errors?.[0]?.extensions?.code === "GRAPHQL_VALIDATION_FAILED";
      if (refused !== operation.refused) throw new Error(`${operation.name}: unexpected answer ${JSON.stringify(answer).slice(0, 300)}`);
    }
    const times = new Map<string, number[]>(OPERATIONS.map((o) => [o.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const operation of OPERATIONS) {
        const samples = times.get(operation.name)!;
        for (let i = 0; i < REQUESTS / ROUNDS; i++) {
          const start = performance.now();
          await send(operation);
          samples.push(performance.now() - start);
        }
      }
    }
    const customers = await fetch(`${service.url}/api/v1/customers?limit=1`, { headers: { authorization: `Bearer ${service.sandboxKey}` } });
    const created = ((await customers.json()) as { customers: unknown[] }).customers.length;

    const median = (name: string) => percentile([...times.get(name)!].sort((a, b) => a - b), 50);
    const baseline = median(OPERATIONS[0]!.name);
    const rows = OPERATIONS.map((operation) => {
      const sorted = [...times.get(operation.name)!].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      const bytes = Buffer.byteLength(operation.query);
      return `| ${operation.name} | ${(bytes / 1024).toFixed(1)} KB | ${p50.toFixed(2)} ms | ${percentile(sorted, 99).toFixed(2)} ms | ${(p50 - baseline >= 0 ? "+" : "")}${(p50 - baseline).toFixed(2)} ms |`;
    });
    console.log(`## GraphQL bounds: the cost of a refused operation (${service.databaseName}, ${REQUESTS} requests each, one client, round trip)

| operation | query text | p50 | p99 | p50 over \`{ __typename }\` |
|---|---|---|---|---|
${rows.join("\n")}

Customers in the database after ${REQUESTS + 1} refused \`createCustomer\` mutations (and nothing else that creates one): ${created}.
`);
  } finally {
    await service.stop();
  }
}

await main();
