// A test hook: with TEST_CRASH_AT naming a point, the process dies there as kill -9 would (no
// cleanup, no flush), so tests can check that a restart on the same database loses and repeats
// nothing. Only tests set it; unset (always in production) it does nothing.
import type { Config } from "../config.ts";

export type CrashPoint = NonNullable<Config["testCrashAt"]>;

export function crashPoint(config: Pick<Config, "testCrashAt">, point: CrashPoint): void {
  if (config.testCrashAt === point) process.kill(process.pid, "SIGKILL");
}
