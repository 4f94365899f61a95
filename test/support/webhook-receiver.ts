// A real webhook receiver for tests: node:http on 127.0.0.1, keeping every request's raw body and
// headers, answering with whatever status the test sets per path.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAtMs: number;
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedWebhook[];
  /** requests to one path */
  at(path: string): ReceivedWebhook[];
  /** how a path answers: a status, or "hang" for never */
  respond(path: string, answer: number | "hang" | { status: number; headers?: Record<string, string>; body?: string }): void;
  /** resolves when `path` has received `count` requests in all */
  waitFor(path: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  const answers = new Map<string, number | "hang" | { status: number; headers?: Record<string, string>; body?: string }>();
  const waiters: { path: string; count: number; resolve(): void }[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      requests.push({ path, headers: req.headers, rawBody: Buffer.concat(chunks).toString("utf8"), receivedAtMs: Date.now() });
      for (const w of [...waiters]) {
        if (requests.filter((r) => r.path === w.path).length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      const answer = answers.get(path) ?? 200;
      if (answer === "hang") return;
      const { status, headers, body } = typeof answer === "number" ? { status: answer, headers: {}, body: "ok" } : answer;
      res.writeHead(status, headers);
      res.end(body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    at: (path) => requests.filter((r) => r.path === path),
    respond: (path, answer) => answers.set(path, answer),
    waitFor: (path, count) =>
      requests.filter((r) => r.path === path).length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ path, count, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
