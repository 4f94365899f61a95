// The receiver helper merchants can use (and the spec's receiver rules in code): verify the raw body
// against Service-Signature, in constant time, within a timestamp tolerance (300 s by default).
import { createHmac, timingSafeEqual } from "node:crypto";

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** seconds the signed timestamp may differ from now; 300 unless given */
  toleranceSeconds?: number;
  /** the receiver's current time; the system clock unless given */
  now?: Date;
}

export interface VerifiedWebhook {
  id: string;
  event: string;
  created_at: string;
  data: Record<string, unknown>;
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a delivery and returns its parsed body; throws WebhookVerificationError otherwise.
 * `rawBody` must be the bytes as received (not re-serialized JSON). `secret` may list several
 * secrets, for a receiver in the middle of a rotation.
 */
export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  headers: WebhookHeaders,
  secret: string | string[],
  options: VerifyOptions = {},
): VerifiedWebhook {
  const tolerance = options.toleranceSeconds ?? 300;
  const header = headerValue(headers, "service-signature");
  if (!header) throw new WebhookVerificationError("Missing Service-Signature header");

  let timestamp: number | undefined;
  const digests: string[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t" && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && value) digests.push(value);
  }
  if (timestamp === undefined) throw new WebhookVerificationError("Service-Signature has no valid timestamp");
  if (digests.length === 0) throw new WebhookVerificationError("Service-Signature has no v1 digest");

  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError("Service-Signature timestamp is outside the tolerance");
  }

  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`), body]);
  const secrets = Array.isArray(secret) ? secret : [secret];
  const expected = secrets.map((s) => createHmac("sha256", s).update(signed).digest());
  const matches = digests.some((hex) => {
    const given = /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, "hex") : null;
    return given !== null && expected.some((e) => timingSafeEqual(e, given));
  });
  if (!matches) throw new WebhookVerificationError("No Service-Signature v1 digest matches");

  try {
    return JSON.parse(body.toString("utf8")) as VerifiedWebhook;
  } catch {
    throw new WebhookVerificationError("Body is not valid JSON");
  }
}
