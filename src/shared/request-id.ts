// The id of a request's log line (src/app.ts logs one per request and sends it as X-Request-Id),
// tied to the Web-standard request the doors receive, so an error's line can carry it too.
const ids = new WeakMap<Request, string>();

export function rememberRequestId(request: Request, id: string | undefined): void {
  if (id !== undefined) ids.set(request, id);
}

/** undefined for a request that was not logged (a test calling app.fetch directly) */
export const requestIdOf = (request: Request): string | undefined => ids.get(request);
