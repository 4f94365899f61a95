// A logger whose lines a test reads back: the real pino logger, writing to memory instead of stderr.
import { Writable } from "node:stream";
import { type Logger, createLogger } from "../../src/shared/logger.ts";

export interface CapturedLog {
  logger: Logger;
  /** every line so far, raw */
  raw: string[];
  /** every line so far, parsed */
  lines(): Record<string, unknown>[];
}

export function captureLog(level: "debug" | "info" | "warn" | "error" = "debug"): CapturedLog {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      raw.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(level, sink), raw, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
