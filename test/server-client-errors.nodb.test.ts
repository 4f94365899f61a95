// Requests Node's HTTP parser refuses never reach the app: src/server.ts answers them. Those the API
// documents (414, 431) carry the spec's {"error": ...} body; the others are answered byte for byte as
// Node itself would. Raw sockets, since a client library would not send most of these.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../src/server.ts";

let server: RunningServer;
let port: number;

beforeAll(async () => {
  server = await serve(async () => new Response("ok"), { port: 0, host: "127.0.0.1" });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** Writes `chunks` one after the other on one connection and returns everything read until it closes. */
function exchange(...chunks: string[]): Promise<string> {
  return talk(chunks, () => new Promise((wait) => setTimeout(wait, 20)));
}

/**
 * Writes `first`, waits for its answer, then writes `second`, on one connection: a second request
 * written 20 ms after the first can reach the parser before the first is answered on a loaded
 * machine, which is pipelining, not what is tested.
 */
function exchangeAfterAnswer(first: string, second: string): Promise<string> {
  return talk([first, second], async (answer) => {
    // The first answer is whole when its body "ok" (plain, or chunked and ended) has arrived.
    while (!/ok(\r\n0\r\n\r\n)?$/.test(answer())) await new Promise((wait) => setTimeout(wait, 5));
  });
}

function talk(chunks: string[], between: (answer: () => string) => Promise<unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (data) => (answer += data.toString("latin1")));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        await between(() => answer);
      }
    });
  });
}

const jsonAnswer = (status: string, error: string) => {
  const body = JSON.stringify({ error });
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
};

describe("what the HTTP server answers to requests its parser refuses", () => {
  it("a request line past 16 KiB is 414 with the JSON error body, in one piece or in many", async () => {
    const expected = jsonAnswer("414 URI Too Long", "Request line too long");
    expect(await exchange(`GET /api/v1/payments?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe(expected);
    expect(await exchange("GET /api/v1/payments?q=", ...Array.from({ length: 20 }, () => "a".repeat(1000)))).toBe(expected);
  });

  it("headers past 16 KiB are 431 with the JSON error body, also after an answered request on the same connection", async () => {
    const expected = jsonAnswer("431 Request Header Fields Too Large", "Request header fields too large");
    expect(await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Padding: ${"b".repeat(20_000)}\r\n\r\n`)).toBe(expected);
    const many = Array.from({ length: 300 }, (_, i) => `X-H${i}: ${"c".repeat(60)}\r\n`).join("");
    expect(await exchange(`GET / HTTP/1.1\r\nHost: x\r\n${many}\r\n`)).toBe(expected);
    const afterOne = await exchangeAfterAnswer("GET / HTTP/1.1\r\nHost: x\r\n\r\n", `GET / HTTP/1.1\r\nHost: x\r\nX-Padding: ${"b".repeat(20_000)}\r\n\r\n`);
    expect(afterOne).toMatch(/^HTTP\/1\.1 200 /);
    expect(afterOne.endsWith(expected)).toBe(true);
  });

  it("a malformed request is answered as Node answers it: 400 with no body", async () => {
    expect(await exchange("NOT A REQUEST\r\n\r\n")).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  });
});
