// JSON lines on stderr through pino. Callers pass a message and a flat object of fields; an Error
// goes under `error` (pino's err serializer: type, message, stack). Keys, secrets, tokens and
// signatures are redacted wherever they appear (REDACTED_KEYS, at any depth, inside errors too): an
// API key is logged by its id only. Redaction is the safety net, not a licence: still never hand it
// a secret.
import { pino } from "pino";
import type { Config } from "../config.ts";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Field names whose values never reach a log line, compared in lower case. */
const REDACTED_KEYS = new Set(
  [
    "authorization",
    "cookie",
    "apiKey",
    "api_key",
    "key",
    "secret",
    "previousSecret",
    "previous_secret",
    "webhookSecret",
    "token",
    "password",
    "signature",
    "signedXdr",
    "signed_xdr",
  ].map((k) => k.toLowerCase()),
);
const CENSOR = "[redacted]";
const MAX_DEPTH = 8;

/**
 * `value` with every REDACTED_KEYS field censored, copying only the objects that change. Not pino's
 * `redact` option: its paths match fixed depths, and wildcards at three depths cost ~170 µs a line
 * (measured), more than a whole GET; this walk costs a key lookup per field.
 */
function redact(value: unknown, depth = 0): unknown {
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const clean = redact(item, depth + 1);
      if (clean !== item) (copy ??= [...value])[i] = clean;
    });
    return copy ?? value;
  }
  if (value instanceof Date) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [name, item] of Object.entries(value)) {
    const clean = REDACTED_KEYS.has(name.toLowerCase()) ? CENSOR : redact(item, depth + 1);
    if (clean !== item) (copy ??= { ...value })[name] = clean;
  }
  return copy ?? value;
}

/** `destination`: where lines go (stderr by default; tests pass a stream to read them). */
export function createLogger(level: Config["logLevel"], destination: pino.DestinationStream = pino.destination({ fd: 2 })): Logger {
  const log = pino(
    {
      level,
      base: null,
      messageKey: "message",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        // Errors are left to their serializer (an Error copied here would no longer be one).
        log: (fields) => {
          const { error, ...rest } = fields;
          const clean = redact(rest) as Record<string, unknown>;
          return error === undefined ? clean : { ...clean, error };
        },
      },
      serializers: { error: (error) => redact(pino.stdSerializers.err(error)) },
    },
    destination,
  );
  const at =
    (method: "debug" | "info" | "warn" | "error") =>
    (message: string, fields?: Record<string, unknown>) =>
      fields ? log[method](fields, message) : log[method](message);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
