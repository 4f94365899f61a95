// A Horizon stream (Server-Sent Events) of records, read with eventsource-parser over fetch. Not the
// SDK's `.stream()`: its EventSource (eventsource 2.0.2) rescans each chunk from its start for every
// line in it, quadratic in the chunk, which took a third of the CPU of a 10,000-payment ledger
// (bench:watching). The SDK stream's behaviour is kept: a "close" event, or 15 s without a byte,
// reconnects from the last record received; a failed connection, an answer other than 200, a record
// that is not JSON or a stream the server ends is an error for the caller, which resumes from where
// it saved its work (streamer.ts).
import { createParser } from "eventsource-parser";

/** As the SDK's reconnectTimeout: a connection silent this long is presumed dead. */
const SILENT_RECONNECT_MS = 15_000;

export interface RecordStreamHandlers {
  /** each record, in order (Horizon's "hello" and other non-record frames are left out) */
  onRecord(record: { paging_token: string } & Record<string, unknown>): void;
  /** the stream has stopped for good; nothing more is called */
  onError(error: unknown): void;
}

/** Streams `endpoint` (e.g. https://horizon.example/payments) from `cursor` on. */
export function streamRecords(endpoint: string, cursor: string, handlers: RecordStreamHandlers): { close(): void } {
  let closed = false;
  let from = cursor;
  let connection: AbortController | null = null;
  let silence: NodeJS.Timeout | undefined;

  const close = () => {
    closed = true;
    clearTimeout(silence);
    connection?.abort();
  };

  async function connect() {
    const current = (connection = new AbortController());
    let reconnect = false;
    const again = () => {
      reconnect = true;
      current.abort();
    };
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(again, SILENT_RECONNECT_MS);
    };
    const url = new URL(endpoint);
    url.searchParams.set("cursor", from);
    try {
      heard();
      const response = await fetch(url, { headers: { accept: "text/event-stream" }, signal: current.signal });
      if (response.status !== 200 || !response.body) throw new Error(`Horizon answered ${response.status} to ${url.pathname}`);
      const parser = createParser({
        onEvent(event) {
          if (reconnect || closed) return; // the rest comes again over the next connection
          if (event.event === "close") return again();
          const record: unknown = JSON.parse(event.data);
          if (typeof record !== "object" || record === null || !("paging_token" in record)) return;
          from = String(record.paging_token);
          handlers.onRecord(record as Parameters<RecordStreamHandlers["onRecord"]>[0]);
        },
      });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        heard();
        parser.feed(decoder.decode(value, { stream: true }));
        if (reconnect || closed) {
          await reader.cancel();
          break;
        }
      }
      if (!reconnect && !closed) throw new Error(`Horizon ended the stream of ${url.pathname}`);
    } catch (error) {
      if (!reconnect && !closed) {
        close();
        handlers.onError(error);
      }
    } finally {
      clearTimeout(silence);
    }
    if (reconnect && !closed) void connect();
  }

  void connect();
  return { close };
}
