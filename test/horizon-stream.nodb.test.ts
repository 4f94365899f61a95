// src/ledger/horizon-stream.ts against a real HTTP server speaking Horizon's Server-Sent Events:
// records in order however the bytes are cut, a "close" event reconnecting from the last record, and
// the ends that are the caller's to handle (a refusal, a stream the server ends).
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { streamRecords } from "../src/ledger/horizon-stream.ts";

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;
const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function horizon(handler: Handler): Promise<string> {
  const server = createServer((req, res) => handler(req, res, new URL(req.url!, "http://x")));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/payments`;
}

const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const frame = (token: string) => `id: ${token}\ndata: ${JSON.stringify({ paging_token: token, amount: "1.0000000" })}\n\n`;

function collect(endpoint: string, cursor: string) {
  const records: string[] = [];
  const errors: unknown[] = [];
  const stream = streamRecords(endpoint, cursor, { onRecord: (r) => records.push(r.paging_token), onError: (e) => errors.push(e) });
  return { records, errors, stream };
}

const until = async (done: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

it("hands over every record in order, from the cursor asked, however the bytes are cut, and leaves out the greeting", async () => {
  const cursors: string[] = [];
  const endpoint = await horizon((_req, res, url) => {
    cursors.push(url.searchParams.get("cursor")!);
    sse(res);
    const bytes = `retry: 1000\n\ndata: "hello"\n\n${Array.from({ length: 300 }, (_, i) => frame(String(i + 1))).join("")}`;
    // cut anywhere, a line split over writes included
    for (let at = 0; at < bytes.length; at += 997) res.write(bytes.slice(at, at + 997));
  });
  const { records, errors, stream } = collect(endpoint, "now");
  await until(() => records.length === 300);
  stream.close();
  expect(records).toEqual(Array.from({ length: 300 }, (_, i) => String(i + 1)));
  expect(cursors).toEqual(["now"]);
  expect(errors).toEqual([]);
});

it("reconnects after a close event from the last record received, and reports nothing", async () => {
  const cursors: string[] = [];
  const endpoint = await horizon((_req, res, url) => {
    const cursor = url.searchParams.get("cursor")!;
    cursors.push(cursor);
    sse(res);
    if (cursor === "0") res.write(`${frame("1")}${frame("2")}event: close\ndata: byebye\n\n${frame("never")}`);
    else res.write(frame("3"));
  });
  const { records, errors, stream } = collect(endpoint, "0");
  await until(() => records.length === 3);
  stream.close();
  expect(records).toEqual(["1", "2", "3"]);
  expect(cursors).toEqual(["0", "2"]);
  expect(errors).toEqual([]);
});

it("reports a refusal, a record that is not JSON and a stream the server ends as errors, once, and then stays quiet", async () => {
  const refused = collect(await horizon((_req, res) => res.writeHead(503).end("{}")), "0");
  const garbled = collect(await horizon((_req, res) => (sse(res), res.write("data: {not json\n\n"))), "0");
  const ended = collect(await horizon((_req, res) => (sse(res), res.end(frame("1")))), "0");
  await until(() => refused.errors.length + garbled.errors.length + ended.errors.length === 3);
  expect(String(refused.errors[0])).toContain("503");
  expect(garbled.errors[0]).toBeInstanceOf(SyntaxError);
  expect(String(ended.errors[0])).toContain("ended");
  expect(ended.records).toEqual(["1"]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect([refused.errors.length, garbled.errors.length, ended.errors.length]).toEqual([1, 1, 1]);
});
