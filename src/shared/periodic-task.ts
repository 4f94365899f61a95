// A worker's loop: its run again `intervalMs` after each run ends (never two at once), from start()
// until stop(), which waits for a run in progress. Only main.ts (through app.start) starts one.
export interface PeriodicTask {
  start(): void;
  stop(): Promise<void>;
}

export function periodicTask(run: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): PeriodicTask {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  function tick() {
    running = run()
      .catch(onError)
      .finally(() => {
        if (timer) timer = setTimeout(tick, intervalMs);
      });
  }
  return {
    start() {
      if (timer) return;
      timer = setTimeout(tick, 0);
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
