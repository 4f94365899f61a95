// The one loop of every background worker (src/shared/periodic-task.ts), on real timers. The interval
// is long (10 s) wherever a run must come from a wake or a full batch rather than from the wait.
import { afterEach, describe, expect, it } from "vitest";
import { type PeriodicTask, periodicTask } from "../src/shared/periodic-task.ts";

const LONG = 10_000;
const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

let task: PeriodicTask | undefined;
afterEach(() => task?.stop());

describe("periodicTask", () => {
  it("runs at start, then again after the interval", async () => {
    let runs = 0;
    task = periodicTask(async () => void runs++, { intervalMs: 50, onError: () => {} });
    task.start();
    await tick(10);
    expect(runs).toBe(1);
    await tick(120);
    expect(runs).toBeGreaterThanOrEqual(2);
  });

  it("wake() runs it now instead of at the end of the wait", async () => {
    let runs = 0;
    task = periodicTask(async () => void runs++, { intervalMs: LONG, onError: () => {} });
    task.start();
    await tick();
    expect(runs).toBe(1);
    task.wake();
    await tick();
    expect(runs).toBe(2);
  });

  it("wakes during a run make one more run, not one each, and never two at once", async () => {
    let runs = 0;
    let inRun = 0;
    let most = 0;
    let release = () => {};
    task = periodicTask(
      async () => {
        runs++;
        most = Math.max(most, ++inRun);
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
        inRun--;
      },
      { intervalMs: LONG, onError: () => {} },
    );
    task.start();
    await tick();
    for (let i = 0; i < 5; i++) task.wake();
    release();
    await tick();
    expect(runs).toBe(2);
    expect(most).toBe(1);
  });

  it("a run that left more waiting is followed at once", async () => {
    const batches = [true, true, false];
    let runs = 0;
    task = periodicTask(async () => batches[runs++] ?? false, { intervalMs: LONG, onError: () => {}, moreWaiting: (full) => full });
    task.start();
    await tick();
    expect(runs).toBe(3);
  });

  it("a failed run is reported and the loop goes on", async () => {
    const errors: unknown[] = [];
    let runs = 0;
    task = periodicTask(
      async () => {
        if (++runs === 1) throw new Error("database gone");
      },
      { intervalMs: 20, onError: (error) => errors.push(error) },
    );
    task.start();
    await tick(100);
    expect(errors).toEqual([new Error("database gone")]);
    expect(runs).toBeGreaterThanOrEqual(2);
  });

  it("stop() waits for the run in progress, and nothing runs after it", async () => {
    let runs = 0;
    let finished = false;
    task = periodicTask(
      async () => {
        runs++;
        await tick(50);
        finished = true;
      },
      { intervalMs: 0, onError: () => {} },
    );
    task.start();
    await tick(10);
    await task.stop();
    expect(finished).toBe(true);
    const after = runs;
    task.wake();
    await tick(60);
    expect(runs).toBe(after);
  });
});
