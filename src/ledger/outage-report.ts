// How a network that cannot be used shows in the log: one warning when it first fails, then a
// summary every `summaryMs` while it stays down, and one info line when it works again; never a
// stack trace per retry (the streamer retries every few seconds, forever, e.g. offline). The lines
// say "unavailable", not "unreachable": a server that answers with an error (HTTP 503, a JSON-RPC
// error such as "database is locked") was reached; the reason field says which it was.
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";

export interface OutageReport {
  /** a connection attempt failed */
  failed(error: unknown): void;
  /** a connection worked */
  reached(): void;
}

/** A readable reason: the stream's failures are often not Errors but EventSource error events. */
function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const { message, type, status } = (error ?? {}) as { message?: unknown; type?: unknown; status?: unknown };
  if (typeof message === "string" && message) return message;
  if (typeof status === "number") return `HTTP ${status}`;
  if (typeof type === "string") return `${type} event`;
  return String(error);
}

/** `api`: what is at `url` ("Horizon", "Stellar RPC"), as the log lines name it. */
export function createOutageReport(deps: { logger: Logger; clock: Clock }, url: string, summaryMs = 60_000, api = "Horizon"): OutageReport {
  let since: Date | null = null;
  let retries = 0;
  let lastReport = 0;
  return {
    failed(error) {
      const now = deps.clock.now();
      if (since === null) {
        since = now;
        retries = 0;
        lastReport = now.getTime();
        deps.logger.warn(`${api} ${url} unavailable; retrying`, { reason: reasonOf(error) });
        return;
      }
      retries++;
      if (now.getTime() - lastReport < summaryMs) return;
      lastReport = now.getTime();
      deps.logger.warn(`${api} ${url} still unavailable: ${retries} retries since ${since.toISOString()}`, { retries, reason: reasonOf(error) });
    },
    reached() {
      if (since === null) return;
      deps.logger.info(`${api} ${url} available again`, { since: since.toISOString(), retries });
      since = null;
    },
  };
}
