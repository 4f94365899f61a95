// A bare graphql-sse client for tests and the bench: POSTs an operation to /graphql/stream and reads
// `event: next` frames (and `event: complete`) from the response body as they arrive.
export interface SseFrame {
  event: string;
  /** the raw `data:` text, to check what reached the wire */
  raw: string;
  data: any;
}

export interface SseSubscription {
  status: number;
  headers: Headers;
  /** the next `next` frame's data; rejects on complete, close or timeout */
  next(timeoutMs?: number): Promise<any>;
  /** every frame read so far */
  frames: SseFrame[];
  close(): void;
}

export async function subscribeSse(
  baseUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<SseSubscription> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/graphql/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  const frames: SseFrame[] = [];
  const queue: SseFrame[] = [];
  const waiters: ((frame: SseFrame | null) => void)[] = [];
  let ended = false;
  const deliver = (frame: SseFrame | null) => {
    if (frame) frames.push(frame);
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else if (frame) queue.push(frame);
  };

  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
          }
          if (!data.length && event === "message") continue; // keep-alive comment
          const raw = data.join("\n");
          deliver({ event, raw, data: raw ? JSON.parse(raw) : null });
        }
      }
    } catch {
      // aborted by close()
    }
    ended = true;
    while (waiters.length) deliver(null);
  })();

  async function nextFrame(timeoutMs: number): Promise<SseFrame> {
    const frame =
      queue.shift() ??
      (ended
        ? null
        : await new Promise<SseFrame | null>((resolve, reject) => {
            const waiter = (f: SseFrame | null) => {
              clearTimeout(timer);
              resolve(f);
            };
            const timer = setTimeout(() => {
              waiters.splice(waiters.indexOf(waiter), 1);
              reject(new Error(`no SSE frame within ${timeoutMs} ms`));
            }, timeoutMs);
            waiters.push(waiter);
          }));
    if (!frame) throw new Error("the SSE stream ended");
    return frame;
  }

  return {
    status: response.status,
    headers: response.headers,
    frames,
    async next(timeoutMs = 10_000) {
      const frame = await nextFrame(timeoutMs);
      if (frame.event !== "next") throw new Error(`expected a next frame, got ${frame.event}`);
      return frame.data;
    },
    close: () => abort.abort(),
  };
}
