// A network that cannot be reached (offline, DNS failing, Horizon down) is the network's state, not
// a bug: whoever asked (a payer preparing a transaction, the test wallet, a refund) is told so in
// words (UNAVAILABLE), and the log gets the outage report's one warning, not an error with a stack
// trace per request.
import { unavailable } from "../errors.ts";
import { type LedgerSource, isFatal } from "./ledger-source.ts";
import type { OutageReport } from "./outage-report.ts";

/** Error codes of a connection that never got an answer (Node's sockets and DNS, undici, the SDK's HTTP client). */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
  "ERR_NETWORK",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/** Whether `error`, or an error it was caused by, is a connection that got no answer. */
export function isUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
    // The SDK's Horizon client rethrows a network failure as a plain Error of the same message
    // ("connect ECONNREFUSED 127.0.0.1:1", "getaddrinfo ENOTFOUND ..."), without its code.
    if (typeof message === "string" && message.split(/\s+/).some((word) => UNREACHABLE_CODES.has(word))) return true;
  }
  return false;
}

export const NETWORK_UNREACHABLE_MESSAGE = "The Stellar network cannot be reached right now; try again in a moment";

/**
 * The source, whose calls that reach no network reject with UNAVAILABLE (and are reported once to
 * `report`); everything else passes through as it is.
 */
export function reportingUnreachable(source: LedgerSource, report: OutageReport): LedgerSource {
  return new Proxy(source, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer) => {
            report.reached();
            return answer;
          },
          (error: unknown) => {
            // A misconfigured node (another network) is, to a payer, a network not reachable: the log says why.
            // Its cause stays: the streamer stops the network on it (fatalFaultOf) instead of retrying.
            if (isFatal(error)) throw Object.assign(unavailable(NETWORK_UNREACHABLE_MESSAGE), { cause: error });
            if (!isUnreachable(error)) throw error;
            report.failed(error);
            throw unavailable(NETWORK_UNREACHABLE_MESSAGE);
          },
        );
      };
    },
  });
}
