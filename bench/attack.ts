// `npx tsx bench/attack.ts`: what 20 attacking clients do to an honest merchant's reads. The real
// service (one process, simulated ledger, the production defaults of every limit) serves one victim
// client that reads a payment by id 50 times a second with its live key, first alone, then while 20
// clients, each from an address of its own (127.0.1.x), send the attacks of issue 13 in a loop:
// deep queries and 1,000-alias queries with a sandbox key, 1,000 anonymous checkout aliases, payment
// link visits, and payWithTestWallet calls. Prints the victim's latency in both phases and what each
// kind of attack was answered.
// ATTACK_SECONDS (default 10) sets how long each phase lasts; ATTACK_ONLY=visit,wallet (names from
// `attacks` below) sends only those kinds; BENCH_DATABASE_URL=postgresql://... runs on PostgreSQL.
import { type Agent, Agent as HttpAgent, request as httpRequest } from "node:http";
import { loadConfig } from "../src/config.ts";
import { type ServiceUnderTest, startService } from "./lib/service.ts";

const seconds = Number(process.env.ATTACK_SECONDS ?? 10);
const ATTACKERS = 20;
const VICTIM_INTERVAL_MS = 20;
const ALIASES = 1000;
const DEPTH = 27;

interface Answer {
  status: number;
  body: string;
}

function send(agent: Agent, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.setTimeout(30_000, () => req.destroy(new Error("timeout")));
    req.end(options.body);
  });
}

const aliases = (field: string) => Array.from({ length: ALIASES }, (_, i) => `a${i}: ${field}`).join(" ");

/** payments → customer → payments → ..., DEPTH levels: the loop of the type graph. */
function deepQuery(): string {
  let selection = "id";
  for (let level = 0; level < DEPTH; level++) {
    selection = level % 2 === 0 ? `payments(first: 100) { edges { node { ${selection} } } }` : `customer { ${selection} }`;
  }
  return `{ payments(first: 100) { edges { node { customer { ${selection} } } } } }`;
}

interface Target {
  service: ServiceUnderTest;
  /** the sandbox payment the attackers aim at */
  paymentId: string;
  linkId: string;
  /** the live payment the victim reads */
  victimPaymentId: string;
}

/** One attack: a request, and how its answer is classified in the report. */
type Attack = (agent: Agent, target: Target) => Promise<string>;

const graphql = async (agent: Agent, target: Target, query: string, key?: string, variables?: Record<string, unknown>) => {
  const answer = await send(agent, `${target.service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify({ query, variables }),
  });
  const code = /"code":"([A-Z_]+)"/.exec(answer.body)?.[1];
  return `${answer.status} ${code ?? (answer.body.includes('"errors"') ? "error" : "data")}`;
};

const attacks: Record<string, Attack> = {
  deep: (agent, target) => graphql(agent, target, deepQuery(), target.service.sandboxKey),
  aliases: (agent, target) => graphql(agent, target, `{ ${aliases("payments(first: 100) { edges { node { id } } }")} }`, target.service.sandboxKey),
  checkoutAliases: (agent, target) => graphql(agent, target, `query ($id: ID!) { ${aliases("checkout(id: $id) { id amount }")} }`, undefined, { id: target.paymentId }),
  visit: async (agent, target) => String((await send(agent, `${target.service.url}/c/${target.linkId}`)).status),
  wallet: (agent, target) =>
    graphql(agent, target, "mutation ($id: ID!) { payWithTestWallet(paymentId: $id) { successful } }", undefined, { id: target.paymentId }),
};

async function post(service: ServiceUnderTest, path: string, key: string, body: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

/** A customer with payments, so the deep query has a loop to walk; the payment and link to attack. */
async function prepareTarget(service: ServiceUnderTest): Promise<Target> {
  const customer = await post(service, "/api/v1/customers", service.sandboxKey, { email: "loop@example.test" });
  for (let i = 0; i < 20; i++) await post(service, "/api/v1/payments", service.sandboxKey, { amount: "1", customer_id: customer.id });
  const payment = await post(service, "/api/v1/payments", service.sandboxKey, { amount: "7" });
  const link = await post(service, "/api/v1/payment-links", service.sandboxKey, { amount: "5" });
  const victimPayment = await post(service, "/api/v1/payments", service.liveKey, { amount: "3" });
  return { service, paymentId: payment.id, linkId: link.id, victimPaymentId: victimPayment.id };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** The victim reads one payment every VICTIM_INTERVAL_MS until `until`; its latencies and statuses. */
async function victim(service: ServiceUnderTest, paymentId: string, until: number) {
  const agent = new HttpAgent({ keepAlive: true });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  while (Date.now() < until) {
    const started = performance.now();
    const answer = await send(agent, `${service.url}/api/v1/payments/${paymentId}`, { headers: { authorization: `Bearer ${service.liveKey}` } }).catch(
      () => ({ status: 0, body: "" }),
    );
    const took = performance.now() - started;
    latencies.push(took);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, VICTIM_INTERVAL_MS - took)));
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)!, statuses };
}

async function attacker(kind: string, index: number, target: Target, until: number, tally: Map<string, number>) {
  // Each attacker calls from an address of its own, so none shares another's per-address budget.
  const agent = new HttpAgent({ keepAlive: true, localAddress: `127.0.1.${index + 1}` });
  while (Date.now() < until) {
    const outcome = await attacks[kind]!(agent, target).catch((error: Error) => `failed: ${error.message}`);
    const key = `${kind} ${outcome}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  agent.destroy();
}

async function main() {
  const only = process.env.ATTACK_ONLY?.split(",");
  const kinds = Object.keys(attacks).filter((kind) => !only || only.includes(kind));
  const defaults = loadConfig({}).rateLimits;
  const service = await startService({
    LEDGER: "simulated",
    RATE_LIMIT_LIVE: String(defaults.live),
    RATE_LIMIT_SANDBOX: String(defaults.sandbox),
    RATE_LIMIT_PUBLIC: String(defaults.public),
  });
  try {
    const target = await prepareTarget(service);
    const alone = await victim(service, target.victimPaymentId, Date.now() + seconds * 1000);

    const tally = new Map<string, number>();
    const until = Date.now() + seconds * 1000;
    const attacked = victim(service, target.victimPaymentId, until);
    await Promise.all(Array.from({ length: ATTACKERS }, (_, i) => attacker(kinds[i % kinds.length]!, i, target, until, tally)));
    const underAttack = await attacked;

    const row = (name: string, v: Awaited<ReturnType<typeof victim>>) =>
      `| ${name} | ${v.count} | ${v.p50.toFixed(1)} | ${v.p99.toFixed(1)} | ${v.max.toFixed(1)} | ${[...v.statuses].map(([s, n]) => `${s}: ${n}`).join(", ")} |`;
    console.log(
      [
        `${service.databaseName}, one service process (LEDGER=simulated), limits at their defaults (live ${defaults.live}/s, sandbox ${defaults.sandbox}/s, public ${defaults.public}/s per address); ${seconds} s per phase; ${ATTACKERS} attackers: ${kinds.join(", ")}`,
        "",
        "| Victim: GET /api/v1/payments/{id}, 50/s | requests | p50 ms | p99 ms | max ms | statuses |",
        "|---|---:|---:|---:|---:|---|",
        row("alone", alone),
        row(`under ${ATTACKERS} attackers`, underAttack),
        "",
        "| Attack | answer | count |",
        "|---|---|---:|",
        ...[...tally].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => {
          const [kind, ...answer] = key.split(" ");
          return `| ${kind} | ${answer.join(" ")} | ${count} |`;
        }),
      ].join("\n"),
    );
  } finally {
    await service.stop();
  }
}

await main();
