// One autocannon measurement: a short warm-up (JIT, connection pools), then the measured run.
import autocannon from "autocannon";

export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * Server CPU time per request. Unlike the rate it barely depends on what else the machine runs,
   * so it still compares the service with the bare server when the machine is busy.
   */
  cpuMsPerRequest: number | null;
  /** the database server's CPU time per request (PostgreSQL's processes), null for an embedded database */
  databaseCpuMsPerRequest: number | null;
  /** answers outside 2xx and socket errors: a scenario with any of these is broken, not slow */
  failures: number;
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** several requests in turn per connection (autocannon's `requests`), instead of one repeated */
  requests?: autocannon.Request[];
  /** the status every answer must have (default: any 2xx) */
  expectStatus?: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

function run(options: LoadOptions, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    requests: options.requests,
    connections: options.connections,
    duration: seconds,
  });
}

type CpuClock = () => number | null;

const perRequest = (clock: CpuClock | undefined, before: number | null | undefined, requests: number) => {
  const after = clock?.();
  return before == null || after == null ? null : (after - before) / requests;
};

/** `databaseCpuMs`: the database server's CPU clock (PostgreSQL's processes), when it runs apart. */
export async function measure(options: LoadOptions, server: { cpuMs(): number | null }, databaseCpuMs?: CpuClock): Promise<Measurement> {
  if (options.warmupSeconds > 0) await run(options, options.warmupSeconds);
  const serverCpuMs = () => server.cpuMs();
  const [cpuBefore, databaseBefore] = [serverCpuMs(), databaseCpuMs?.()];
  const result = await run(options, options.seconds);
  return {
    requestsPerSecond: result.requests.average,
    cpuMsPerRequest: perRequest(serverCpuMs, cpuBefore, result.requests.total),
    databaseCpuMsPerRequest: perRequest(databaseCpuMs, databaseBefore, result.requests.total),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures:
      (options.expectStatus === undefined
        ? result.non2xx
        : result.requests.total - ((result.statusCodeStats as Record<string, { count: number }>)[options.expectStatus]?.count ?? 0)) +
      result.errors +
      result.timeouts,
  };
}

/** The nearest-rank percentile `p` (0-100] of values sorted ascending (NaN of none): every bench's one definition. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
