// Server-sent events the way Horizon streams collections: first the records after the cursor, then
// new ones as ledgers close. Each event carries `id: <paging token>` so a reconnecting client
// (Last-Event-ID, or the SDK's updated `cursor`) resumes exactly where it stopped.
const encoder = new TextEncoder();

export interface StreamRecord {
  token: bigint;
  record: unknown;
}

/** A collection to stream: its records after `cursor`, in ascending paging-token order. */
export type StreamSource = (cursor: bigint) => StreamRecord[];

export class SseHub {
  private readonly streams = new Set<SseStream>();

  constructor(private readonly keepAliveMs: number) {}

  get size(): number {
    return this.streams.size;
  }

  open(source: StreamSource, cursor: bigint, signal?: AbortSignal): Response {
    const stream = new SseStream(source, cursor, this.keepAliveMs, () => this.streams.delete(stream));
    this.streams.add(stream);
    signal?.addEventListener("abort", () => stream.close(), { once: true });
    stream.pump();
    return stream.response;
  }

  /** Sends every stream what the ledger that just closed added to its collection. */
  pump(): void {
    for (const stream of this.streams) stream.pump();
  }

  closeAll(): void {
    for (const stream of [...this.streams]) stream.close();
  }
}

class SseStream {
  readonly response: Response;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly keepAlive: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(
    private readonly source: StreamSource,
    private cursor: bigint,
    keepAliveMs: number,
    private readonly onClose: () => void,
  ) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => this.close(),
    });
    this.response = new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "access-control-allow-origin": "*",
        "x-accel-buffering": "no",
      },
    });
    // Writing at once makes the server send the headers, so the client sees the stream open.
    this.write("retry: 1000\n\n");
    // Comments keep proxies and idle timeouts from cutting a quiet stream.
    this.keepAlive = setInterval(() => this.write(": keepalive\n\n"), keepAliveMs);
    this.keepAlive.unref?.();
  }

  pump(): void {
    if (this.closed) return;
    let records: StreamRecord[];
    try {
      records = this.source(this.cursor);
    } catch {
      this.close(); // a stream that cannot render its records ends; the client reconnects
      return;
    }
    if (records.length === 0) return;
    let chunk = "";
    for (const { token, record } of records) chunk += `id: ${token}\ndata: ${JSON.stringify(record)}\n\n`;
    this.cursor = records[records.length - 1]!.token;
    this.write(chunk);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    try {
      this.controller.close();
    } catch {
      // already closed or cancelled by the client
    }
    this.onClose();
  }

  private write(text: string): void {
    if (this.closed) return;
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.close();
    }
  }
}
