// JSON lines on stderr. Never give it secrets: keys and webhook secrets stay out of every field.
import type { Config } from "../config.ts";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const describe = (value: unknown) =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

export function createLogger(level: Config["logLevel"]): Logger {
  const threshold = LEVELS[level];
  const write = (at: Level) => (message: string, fields: Record<string, unknown> = {}) => {
    if (LEVELS[at] < threshold) return;
    const entry = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, describe(v)]));
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...entry })}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}
