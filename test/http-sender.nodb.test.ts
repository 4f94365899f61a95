// The webhook sender over a receiver that resets connections: a kept-alive socket the receiver
// closed while idle is retried once on a new socket; a reset of a fresh socket is a failed attempt.
import { type Socket, createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import { sendWebhookRequest } from "../src/webhooks/http-sender.ts";

/**
 * A bare HTTP/1.1 server: `answer(n)` says whether the n-th request seen on a connection (from 1)
 * gets a kept-alive 200, or the connection is reset (RST) without an answer.
 */
async function resettingReceiver(answer: (nthOnConnection: number) => boolean) {
  const sockets = new Set<Socket>();
  let requests = 0;
  let connections = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    connections++;
    let seen = 0;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      // One small request per chunk boundary is enough here: count the ends of bodies we know.
      while (buffered.includes("\r\n\r\n")) {
        const head = buffered.slice(0, buffered.indexOf("\r\n\r\n"));
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        const end = head.length + 4 + length;
        if (buffered.length < end) return;
        buffered = buffered.slice(end);
        seen++;
        requests++;
        if (!answer(seen)) return void socket.resetAndDestroy();
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\nok");
      }
    });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    counts: () => ({ requests, connections }),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

const receivers: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

const send = (url: string) => sendWebhookRequest({ url, headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 5000, allowPrivate: true });

it("sends again, until a new socket, a request whose kept-alive sockets the receiver reset before answering", async () => {
  // Every connection answers its first request and resets at its second: as a receiver that closed it while idle.
  const receiver = await resettingReceiver((nth) => nth === 1);
  receivers.push(receiver);
  expect(await send(receiver.url)).toEqual({ status: 200, body: null });
  expect(await send(receiver.url)).toEqual({ status: 200, body: null });
  // The second request went out twice: on the reused socket (reset), then on a new one.
  expect(receiver.counts()).toEqual({ requests: 3, connections: 2 });

  // A burst leaves several kept-alive sockets, all of which the receiver resets later.
  const burst = await resettingReceiver((nth) => nth === 1);
  receivers.push(burst);
  await Promise.all(Array.from({ length: 3 }, () => send(burst.url)));
  expect(burst.counts()).toEqual({ requests: 3, connections: 3 });
  expect(await send(burst.url)).toEqual({ status: 200, body: null });
  // Three reused sockets reset one after another, then a new one answered.
  expect(burst.counts()).toEqual({ requests: 7, connections: 4 });
});

it("counts a reset of a fresh socket as a failure, and sends it once", async () => {
  const receiver = await resettingReceiver(() => false);
  receivers.push(receiver);
  await expect(send(receiver.url)).rejects.toMatchObject({ code: "ECONNRESET" });
  expect(receiver.counts()).toEqual({ requests: 1, connections: 1 });
});
