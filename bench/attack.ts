// `npx tsx bench/attack.ts`: what 20 attacking clients do to an honest merchant's reads. The real
// service (one process, simulated ledger, the production defaults of every limit) serves one victim
// client that reads a payment by id 50 times a second with its live key, first alone, then while 20
// clients, each from an address of its own (127.0.1.x), send the attacks of issue 13 in a loop:
// deep queries and 1,000-alias queries with a sandbox key, 1,000 anonymous checkout aliases, payment
// link visits, and payWithTestWallet calls. Prints the victim's latency in both phases and what each
// kind of attack was answered.
// ATTACK_SECONDS (default 10) sets how long each phase lasts; ATTACK_ONLY=visit,wallet (names from
// `attacks` below) sends only those kinds; BENCH_DATABASE_URL=postgresql://... runs on PostgreSQL.
import { spawn } from "node:child_process";
import { type Agent, Agent as HttpAgent, request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config.ts";
import { percentile } from "./lib/measure.ts";
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
const ALIAS_QUERY = `{ ${aliases("payments(first: 100) { edges { node { id } } }")} }`;
const CHECKOUT_ALIAS_QUERY = `query ($id: ID!) { ${aliases("checkout(id: $id) { id amount }")} }`;

/** payments → customer → payments → ..., DEPTH levels: the loop of the type graph. */
function deepQuery(): string {
  let selection = "id";
  for (let level = 0; level < DEPTH; level++) {
    selection = level % 2 === 0 ? `payments(first: 100) { edges { node { ${selection} } } }` : `customer { ${selection} }`;
  }
  return `{ payments(first: 100) { edges { node { customer { ${selection} } } } } }`;
}
const DEEP_QUERY = deepQuery();

/** What the attackers and the victim need to know: plain JSON, handed to the attackers' process. */
interface Target {
  url: string;
  sandboxKey: string;
  liveKey: string;
  /** the sandbox payment the attackers aim at */
  paymentId: string;
  linkId: string;
  /** the live payment the victim reads */
  victimPaymentId: string;
}

/** One attack: a request, and how its answer is classified in the report. */
type Attack = (agent: Agent, target: Target) => Promise<string>;

const graphql = async (agent: Agent, target: Target, query: string, key?: string, variables?: Record<string, unknown>) => {
  const answer = await send(agent, `${target.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    body: JSON.stringify({ query, variables }),
  });
  const code = /"code":"([A-Z_]+)"/.exec(answer.body)?.[1];
  return `${answer.status} ${code ?? (answer.body.includes('"errors"') ? "error" : "data")}`;
};

const attacks: Record<string, Attack> = {
  deep: (agent, target) => graphql(agent, target, DEEP_QUERY, target.sandboxKey),
  aliases: (agent, target) => graphql(agent, target, ALIAS_QUERY, target.sandboxKey),
  checkoutAliases: (agent, target) => graphql(agent, target, CHECKOUT_ALIAS_QUERY, undefined, { id: target.paymentId }),
  visit: async (agent, target) => String((await send(agent, `${target.url}/c/${target.linkId}`)).status),
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
  return {
    url: service.url,
    sandboxKey: service.sandboxKey,
    liveKey: service.liveKey,
    paymentId: payment.id,
    linkId: link.id,
    victimPaymentId: victimPayment.id,
  };
}


/** The victim reads one payment every VICTIM_INTERVAL_MS until `until`; its latencies and statuses. */
async function victim(target: Target, until: number) {
  const agent = new HttpAgent({ keepAlive: true });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  while (Date.now() < until) {
    const started = performance.now();
    const answer = await send(agent, `${target.url}/api/v1/payments/${target.victimPaymentId}`, { headers: { authorization: `Bearer ${target.liveKey}` } }).catch(
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

/**
 * The attackers run in a child process of their own: building and reading their requests in the
 * victim's process would delay the victim's own timing.
 */
function runAttackers(target: Target, kinds: string[], until: number): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
      env: { ...process.env, ATTACK_ROLE: JSON.stringify({ target, kinds, until }) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(new Map(JSON.parse(output) as [string, number][])) : reject(new Error(`attackers exited with ${code}`))));
  });
}

async function attackersProcess(role: { target: Target; kinds: string[]; until: number }) {
  const tally = new Map<string, number>();
  await Promise.all(Array.from({ length: ATTACKERS }, (_, i) => attacker(role.kinds[i % role.kinds.length]!, i, role.target, role.until, tally)));
  process.stdout.write(JSON.stringify([...tally]));
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
    const alone = await victim(target, Date.now() + seconds * 1000);

    // The attackers start (their process loads) before the victim's second phase begins.
    const until = Date.now() + 3000 + seconds * 1000;
    const attackers = runAttackers(target, kinds, until);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const underAttack = await victim(target, until);
    const tally = await attackers;

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
        "| Attack | answer | count (whole attack) |",
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

const role = process.env.ATTACK_ROLE;
await (role ? attackersProcess(JSON.parse(role)) : main());
