// Sends one webhook request over node:http(s). Redirects are never followed (a 3xx is a failure),
// the whole exchange has one deadline, and only the first 4 KiB of the answer are kept.
// Guarded requests use sockets whose DNS lookup refuses private addresses (ssrf-guard.ts); IP
// literals, which skip DNS, are checked here before connecting.
// The answer of a private address (reachable only when the operator allows private targets) is
// never kept: judged here, on the address the socket is connected to, and nowhere else.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { ForbiddenTargetError, bareHost, guardedLookup, isPrivateAddress } from "./ssrf-guard.ts";

const RESPONSE_BODY_LIMIT = 4096;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** false: the target must be a public address (WEBHOOK_ALLOW_PRIVATE unset) */
  allowPrivate: boolean;
}

export interface WebhookResponse {
  status: number;
  /** at most the first 4 KiB, as text; null when the answer came from a private address */
  body: string | null;
}

/** Sends a request and resolves with the answer, whatever its status; rejects when no answer came. */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;

const agentOptions = { keepAlive: true, maxSockets: 256 };
// Separate pools, so a socket opened to a private address is never reused by a guarded request.
const agents = {
  open: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  guarded: {
    http: new http.Agent({ ...agentOptions, lookup: guardedLookup } as http.AgentOptions),
    https: new https.Agent({ ...agentOptions, lookup: guardedLookup } as https.AgentOptions),
  },
};

/**
 * A kept-alive socket the receiver closed while it lay idle fails the next request on it with a
 * reset before any answer (the receiver's idle timeout and our reuse crossed; under load it happens
 * to a whole burst). Such a request is sent again, as Node's documentation advises, instead of
 * counting as a failed attempt that waits a minute for its retry: on the next free socket (each reset
 * one is gone from the pool, so this ends at a new socket at the latest) or a new one, within the
 * same deadline. Deliveries are at least once anyway (receivers tell repeats by the delivery id).
 */
const closedWhileIdle = (req: http.ClientRequest, error: NodeJS.ErrnoException) => req.reusedSocket && error.code === "ECONNRESET";

export const sendWebhookRequest: WebhookSender = (request) =>
  new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const host = bareHost(url.hostname);
    if (!request.allowPrivate && isIP(host) && isPrivateAddress(host)) {
      return reject(new ForbiddenTargetError(host, host));
    }
    // One deadline for the whole exchange, resends included.
    const deadline = Date.now() + request.timeoutMs;
    send(url, request, deadline, resolve, reject);
  });

function send(
  url: URL,
  request: WebhookRequest,
  deadline: number,
  resolve: (response: WebhookResponse) => void,
  reject: (error: unknown) => void,
) {
  const secure = url.protocol === "https:";
  const pool = request.allowPrivate ? agents.open : agents.guarded;
  const req = (secure ? https : http).request(url, {
    method: "POST",
    headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
    agent: secure ? pool.https : pool.http,
  });
  const timer = setTimeout(() => req.destroy(new Error(`Timed out after ${request.timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
  let answered = false;
  req.on("error", (error: NodeJS.ErrnoException) => {
    clearTimeout(timer);
    if (!answered && closedWhileIdle(req, error)) send(url, request, deadline, resolve, reject);
    else reject(error);
  });
  req.on("response", (res) => {
    answered = true;
    const keepBody = !isPrivateAddress(res.socket.remoteAddress ?? "");
    const chunks: Buffer[] = [];
    let kept = 0;
    res.on("data", (chunk: Buffer) => {
      if (keepBody && kept < RESPONSE_BODY_LIMIT) {
        chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
        kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT - kept);
      }
    });
    res.on("end", () => {
      clearTimeout(timer);
      resolve({ status: res.statusCode ?? 0, body: keepBody ? Buffer.concat(chunks).toString("utf8") : null });
    });
    res.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  req.end(request.body);
}
