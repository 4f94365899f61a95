// What a test file must undo when it ends (service processes, servers, databases), undone in the
// reverse order. Call it at the top level of the file. A test that timed out may go on in the
// background and start something after the file ended (its worker runs other files meanwhile): that
// is undone at once, or a cluster of service processes would outlive the run.
import { afterAll } from "vitest";

type Cleanup = () => unknown;

export function fileCleanups(): { push(...cleanups: Cleanup[]): void } {
  const pending: Cleanup[] = [];
  let ended = false;
  afterAll(async () => {
    ended = true;
    for (const cleanup of pending.reverse()) await cleanup();
  });
  return {
    push(...cleanups) {
      if (!ended) return void pending.push(...cleanups);
      void cleanups.reverse().reduce<Promise<unknown>>((previous, cleanup) => previous.then(cleanup).catch(() => {}), Promise.resolve());
    },
  };
}
