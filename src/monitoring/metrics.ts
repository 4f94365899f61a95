// Prometheus metrics (prom-client) for /metrics: requests per route (rate, latency, status), and,
// read when scraped, the backlogs of the outboxes, the ledger lag and the open SSE streams. Each app
// has its own registry (tests run several apps in one process). With WORKERS > 1 the worker that
// answers /metrics asks its primary, which gathers every worker's registry and adds them up
// (prom-client's AggregatorRegistry over the cluster's IPC): one scrape covers the whole instance.
import cluster from "node:cluster";
import { Networks } from "@stellar/stellar-sdk";
import { AggregatorRegistry, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { coordinatorClient } from "../cluster/coordinator.ts";
import type { Deps } from "../context.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { countEventsNotFannedOut } from "../modules/events/events.store.ts";
import { countPendingMail } from "../modules/mail/mail.store.ts";
import { countPendingDeliveries } from "../modules/webhook-deliveries/webhook-deliveries.store.ts";

export interface MetricSources {
  ledger: Pick<Ledger, "sourceFor" | "streamer">;
  /** open /graphql/stream event streams in this process */
  openStreams(): number;
}

export interface Metrics {
  /** one answered request: its method, its route's template (never a raw path), its status, its duration */
  observeRequest(method: string | undefined, route: string, status: number, seconds: number): void;
  /** the exposition text of this instance (all its workers) and its content type */
  scrape(): Promise<{ contentType: string; text: string }>;
}

/** Backlogs and the network's head are read at most this often, however many scrapers ask. */
const SCRAPE_CACHE_MS = 5_000;
/** seconds: from a cached read (~0.2 ms) to a slow page or a stream */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Methods outside this set are counted as "other": a label set stays bounded whatever callers send. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);
const NETWORK_NAMES: Record<string, string> = { [Networks.TESTNET]: "testnet", [Networks.PUBLIC]: "public" };

/** Holds a read for SCRAPE_CACHE_MS; a failed read is not kept. */
function cachedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    if (last && Date.now() - last.at < SCRAPE_CACHE_MS) return last.value;
    const value = read();
    const entry = { at: Date.now(), value };
    last = entry;
    value.catch(() => {
      if (last === entry) last = null;
    });
    return value;
  };
}

let processMetrics: Registry | null = null;

/** CPU, memory, event loop and GC (prom-client's defaults): one set per process, however many apps it runs (tests run many). */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics, prefix: "stellar_pay_" });
  }
  return processMetrics;
}

export function createMetrics(deps: Pick<Deps, "db">, sources: MetricSources): Metrics {
  const registry = new Registry();

  const requests = new Histogram({
    name: "stellar_pay_http_request_duration_seconds",
    help: "Requests answered, by method, route template and status, and how long each took (an SSE stream: until it closed)",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  const backlogs = cachedRead(async () => {
    const [events, deliveries, mail] = await Promise.all([countEventsNotFannedOut(deps.db), countPendingDeliveries(deps.db), countPendingMail(deps.db)]);
    return { events, deliveries, mail };
  });
  // The backlogs are the database's, the same in every worker: the cluster keeps one value, not a sum.
  const backlogGauge = (name: string, help: string, pick: (b: Awaited<ReturnType<typeof backlogs>>) => number) =>
    new Gauge({
      name,
      help,
      aggregator: "max",
      registers: [registry],
      async collect() {
        this.set(pick(await backlogs()));
      },
    });
  backlogGauge("stellar_pay_outbox_backlog_events", "Events committed and not yet fanned out to webhook deliveries", (b) => b.events);
  backlogGauge("stellar_pay_webhook_backlog_deliveries", "Webhook deliveries pending: due now or waiting for a retry", (b) => b.deliveries);
  backlogGauge("stellar_pay_mail_backlog_messages", "Mail messages waiting to be sent", (b) => b.mail);

  new Gauge({
    name: "stellar_pay_sse_subscribers",
    help: "Open GraphQL-over-SSE streams (/graphql/stream)",
    registers: [registry],
    collect() {
      this.set(sources.openStreams());
    },
  });

  const heads = new Map<string, () => Promise<number>>();
  const headOf = (network: string) => {
    let read = heads.get(network);
    if (!read) heads.set(network, (read = cachedRead(() => sources.ledger.sourceFor(network).latestLedger())));
    return read();
  };
  new Gauge({
    name: "stellar_pay_ledger_lag_ledgers",
    help: "Per network this instance watches: the network's newest ledger minus the ledger of the newest operation processed (rises on a network quiet for us)",
    labelNames: ["network"] as const,
    // Only the process that watches a network reports it.
    aggregator: "max",
    registers: [registry],
    async collect() {
      this.reset();
      for (const { networkPassphrase, processedLedger } of sources.ledger.streamer.progress()) {
        if (processedLedger === null) continue;
        const head = await headOf(networkPassphrase).catch(() => null);
        if (head !== null) this.set({ network: NETWORK_NAMES[networkPassphrase] ?? "other" }, Math.max(0, head - processedLedger));
      }
    },
  });

  // A worker answers its primary's gathering with this registry.
  if (cluster.isWorker) {
    AggregatorRegistry.setRegistries([registry, processRegistry()]);
    new AggregatorRegistry();
  }
  const coordinator = coordinatorClient();

  return {
    observeRequest(method, route, status, seconds) {
      requests.observe({ method: method && METHODS.has(method) ? method : "other", route, status: String(status) }, seconds);
    },
    async scrape() {
      const text = coordinator ? await coordinator.clusterMetrics() : await Registry.merge([registry, processRegistry()]).metrics();
      return { contentType: registry.contentType, text };
    },
  };
}
