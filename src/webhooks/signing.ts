// Webhook signatures, as interface-spec.md and decisions.md fix them:
// - Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the whsec_ string>
// - Standard Webhooks: webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<t>.<raw body>" keyed with
//   the base64-decoded part after whsec_>
// During a rotation's grace period every active secret signs, so both schemes carry one entry each.
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** A new signing secret: whsec_ + base64 of 32 random bytes. */
export const generateSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;

/** The spec's v1 digest: lowercase hex HMAC-SHA256 of "<timestamp>.<body>", keyed with the secret's UTF-8 bytes. */
const serviceDigest = (secret: string, timestamp: number, body: string) =>
  createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");

/** The Standard Webhooks digest: base64 HMAC-SHA256 of "<id>.<timestamp>.<body>", keyed with the decoded secret. */
const standardDigest = (secret: string, messageId: string, timestamp: number, body: string) =>
  createHmac("sha256", Buffer.from(secret.slice(SECRET_PREFIX.length), "base64"))
    .update(`${messageId}.${timestamp}.${body}`)
    .digest("base64");

export interface SignedDelivery {
  deliveryId: string;
  eventType: string;
  body: string;
  /** the current secret first, then the previous one while its grace period lasts */
  secrets: string[];
  timestamp: number;
}

/** Every header a delivery carries; content-type included. */
export function signatureHeaders(d: SignedDelivery): Record<string, string> {
  const t = String(d.timestamp);
  return {
    "content-type": "application/json",
    "user-agent": "stellar-pay-webhooks/1",
    "service-signature": [`t=${t}`, ...d.secrets.map((s) => `v1=${serviceDigest(s, d.timestamp, d.body)}`)].join(","),
    "service-event": d.eventType,
    "service-timestamp": t,
    "service-delivery-id": d.deliveryId,
    "webhook-id": d.deliveryId,
    "webhook-timestamp": t,
    "webhook-signature": d.secrets.map((s) => `v1,${standardDigest(s, d.deliveryId, d.timestamp, d.body)}`).join(" "),
  };
}
