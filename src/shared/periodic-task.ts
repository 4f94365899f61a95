// A worker's loop, for every background worker (expiry, retention, webhooks, mail): its run again
// `intervalMs` after each run ends (never two at once), from start() until stop(), which waits for a
// run in progress. wake() runs it now instead of at the end of the wait; wakes that come while it
// runs make one more run, not one each. A run that left work behind (`moreWaiting` of its result)
// is followed at once. Only main.ts (through app.start) starts one.
export interface PeriodicTask {
  start(): void;
  stop(): Promise<void>;
  /** work may have been committed: run now rather than at the end of the wait */
  wake(): void;
}

export interface PeriodicTaskOptions<T> {
  intervalMs: number;
  /** a run that failed (the loop goes on) */
  onError: (error: unknown) => void;
  /** whether the run's result says more is waiting (a full batch) */
  moreWaiting?: (result: T) => boolean;
}

export function periodicTask<T>(run: () => Promise<T>, { intervalMs, onError, moreWaiting }: PeriodicTaskOptions<T>): PeriodicTask {
  let started = false;
  let running: Promise<void> | null = null;
  let wakeRequested = false;
  /** cancels the run waiting to start (a timer or an immediate) */
  let cancelNext = () => {};
  const next = (delayMs: number) => {
    cancelNext();
    if (delayMs === 0) {
      // the turn after the caller's (a request that woke it answers first)
      const immediate = setImmediate(tick);
      cancelNext = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(tick, delayMs);
      cancelNext = () => clearTimeout(timer);
    }
  };
  function tick() {
    cancelNext = () => {};
    wakeRequested = false;
    let again = false;
    running = run()
      .then((result) => void (again = moreWaiting?.(result) ?? false), onError)
      .finally(() => {
        running = null;
        if (started) next(again || wakeRequested ? 0 : intervalMs);
      });
  }
  return {
    start() {
      if (started) return;
      started = true;
      next(0);
    },
    wake() {
      if (!started) return;
      if (running) wakeRequested = true;
      else next(0);
    },
    async stop() {
      started = false;
      cancelNext();
      await running;
    },
  };
}
