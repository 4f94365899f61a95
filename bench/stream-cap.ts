// `npx tsx bench/stream-cap.ts`: #30's stream figure. The real service (src/main.ts in a child
// process, WORKERS=1 as the cap is per worker, SQLite or BENCH_DATABASE_URL, the default
// SSE_STREAMS_PER_ADDRESS) gets STREAM_ATTEMPTS
// (default 2,400) checkout subscriptions at once from one address on each door that could serve one:
// /graphql/stream (graphql-sse), and /graphql asked for yoga's event stream by POST and by GET. An
// attempt is accepted when its stream sends the checkout's state and stays open. Prints, per door,
// accepted and refused, and what /metrics counts as open while the accepted ones are held.
import { type ClientRequest, request } from "node:http";
import { loadConfig } from "../src/config.ts";
import { startService } from "./lib/service.ts";

const ATTEMPTS = Number(process.env.STREAM_ATTEMPTS ?? 2_400);
const WATCH = "subscription ($id: ID!) { checkout(id: $id) { state } }";

interface Attempt {
  accepted: boolean;
  /** the status, or the error's code */
  answer: string;
  close(): void;
}

/** One subscription on its own connection; settles at the first event, or when the answer ends or fails. */
function subscribe(url: string, method: "GET" | "POST", body: string | undefined): Promise<Attempt> {
  return new Promise((resolve) => {
    let req: ClientRequest | null = null;
    let settled = false;
    const settle = (accepted: boolean, answer: string) => {
      if (settled) return;
      settled = true;
      resolve({ accepted, answer, close: () => req?.destroy() });
      if (!accepted) req?.destroy();
    };
    req = request(url, { method, agent: false, headers: { accept: "text/event-stream", ...(body && { "content-type": "application/json" }) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
        // The first result: the checkout's state is an accepted stream, an error a refusal.
        if (text.includes("event: next")) settle(text.includes('"state"'), answerOf(res.statusCode, text));
      });
      res.on("end", () => settle(false, answerOf(res.statusCode, text)));
      res.on("error", () => settle(false, String(res.statusCode)));
    });
    req.on("error", (error: NodeJS.ErrnoException) => settle(false, error.code ?? error.message));
    // 2,400 at once take a while on a busy machine: only a connection silent for 2 minutes counts as lost.
    req.setTimeout(120_000, () => req?.destroy(new Error("timeout")));
    req.end(body);
  });
}

/** The status, with the GraphQL error code when the answer carries one ("200 BAD_REQUEST"). */
const answerOf = (status: number | undefined, text: string) => `${status}${/"code":"(\w+)"/.exec(text)?.[1]?.replace(/^/, " ") ?? ""}`;

async function openStreams(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^stellar_pay_sse_subscribers (\d+)$/m.exec(text)?.[1] ?? NaN);
}

async function main() {
  const service = await startService({ WORKERS: "1" });
  const cap = loadConfig({ DATABASE_URL: service.databaseUrl, ...process.env }).sseStreamsPerAddress;
  try {
    const created = await fetch(`${service.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.liveKey}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "10" }),
    });
    const { id } = (await created.json()) as { id: string };
    const variables = { id };
    const body = JSON.stringify({ query: WATCH, variables });
    const doors: [string, () => Promise<Attempt>][] = [
      ["POST /graphql/stream (graphql-sse)", () => subscribe(`${service.url}/graphql/stream`, "POST", body)],
      ["POST /graphql (yoga's event stream)", () => subscribe(`${service.url}/graphql`, "POST", body)],
      [
        "GET /graphql (yoga's event stream)",
        () => subscribe(`${service.url}/graphql?query=${encodeURIComponent(WATCH)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, "GET", undefined),
      ],
    ];
    const rows: string[] = [];
    for (const [door, attempt] of doors.filter(([name]) => !process.env.STREAM_DOORS || process.env.STREAM_DOORS.split(",").some((d) => name.startsWith(d)))) {
      const started = performance.now();
      const attempts = await Promise.all(Array.from({ length: ATTEMPTS }, attempt));
      const seconds = (performance.now() - started) / 1000;
      const accepted = attempts.filter((a) => a.accepted).length;
      const answers = new Map<string, number>();
      for (const a of attempts.filter((a) => !a.accepted)) answers.set(a.answer, (answers.get(a.answer) ?? 0) + 1);
      const counted = await openStreams(service.url);
      rows.push(
        `| ${door} | ${ATTEMPTS} | ${accepted} | ${ATTEMPTS - accepted} (${[...answers].map(([answer, n]) => `${answer}: ${n}`).join(", ") || "none"}) | ${counted} | ${seconds.toFixed(1)} |`,
      );
      attempts.forEach((a) => a.close());
      // The next door starts with every place given back.
      while ((await openStreams(service.url)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(`## Streams from one address (${service.databaseName}, ${service.workers} worker, SSE_STREAMS_PER_ADDRESS ${cap})

| door | attempts at once | accepted (open) | refused (answer: count) | /metrics open streams while held | seconds until all answered |
|---|---:|---:|---|---:|---:|
${rows.join("\n")}
`);
  } finally {
    await service.stop();
  }
}

await main();
