// The receiver helper verifyWebhook, the address rules of the SSRF guard and the secret keys'
// configuration: no database involved.
import { createHmac, randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";
import { maskSecret } from "../src/webhooks/secret-box.ts";
import { generateSecret, signatureHeaders } from "../src/webhooks/signing.ts";
import { isPrivateAddress } from "../src/webhooks/ssrf-guard.ts";
import { WebhookVerificationError, verifyWebhook } from "../src/webhooks/verify.ts";

const secret = generateSecret();
const body = '{"id":"evt_1","event":"payment.completed","created_at":"2026-01-01T00:00:00.000Z","data":{"id":"pay_1","amount":"1.0000000"}}';
const now = new Date("2026-01-01T00:00:00Z");
const t0 = Math.floor(now.getTime() / 1000);
const sign = (s: string, t: number, b: string) => createHmac("sha256", s).update(`${t}.${b}`).digest("hex");
const headersFor = (signature: string) => ({ "Service-Signature": signature });

describe("verifyWebhook", () => {
  it("accepts what the service signs and returns the parsed body", () => {
    const headers = new Headers(signatureHeaders({ deliveryId: "whd_1", eventType: "payment.completed", body, secrets: [secret], timestamp: t0 }));
    expect(verifyWebhook(body, headers, secret, { now })).toMatchObject({ id: "evt_1", event: "payment.completed" });
    expect(verifyWebhook(Buffer.from(body), Object.fromEntries(headers), secret, { now }).data).toEqual({ id: "pay_1", amount: "1.0000000" });
  });

  it("uses the raw body: a re-serialized body with the same JSON is rejected", () => {
    const headers = headersFor(`t=${t0},v1=${sign(secret, t0, body)}`);
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    expect(() => verifyWebhook(reserialized, headers, secret, { now })).toThrow("No Service-Signature v1 digest matches");
  });

  it("rejects a wrong secret, a tampered body, and a digest of the wrong shape", () => {
    const good = sign(secret, t0, body);
    expect(() => verifyWebhook(body, headersFor(`t=${t0},v1=${good}`), generateSecret(), { now })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body.replace("1.0000000", "9.0000000"), headersFor(`t=${t0},v1=${good}`), secret, { now })).toThrow(
      "No Service-Signature v1 digest matches",
    );
    expect(() => verifyWebhook(body, headersFor(`t=${t0},v1=${good.slice(0, 62)}`), secret, { now })).toThrow(
      "No Service-Signature v1 digest matches",
    );
    expect(() => verifyWebhook(body, headersFor(`t=${t0},v1=${good.toUpperCase()}`), secret, { now })).toThrow(
      "No Service-Signature v1 digest matches",
    );
  });

  it("allows 300 seconds of clock difference by default, and the tolerance given", () => {
    for (const offset of [-300, 300]) {
      const t = t0 + offset;
      expect(verifyWebhook(body, headersFor(`t=${t},v1=${sign(secret, t, body)}`), secret, { now }).id).toBe("evt_1");
    }
    for (const offset of [-301, 301]) {
      const t = t0 + offset;
      expect(() => verifyWebhook(body, headersFor(`t=${t},v1=${sign(secret, t, body)}`), secret, { now })).toThrow(
        "Service-Signature timestamp is outside the tolerance",
      );
    }
    const t = t0 - 30;
    expect(() => verifyWebhook(body, headersFor(`t=${t},v1=${sign(secret, t, body)}`), secret, { now, toleranceSeconds: 10 })).toThrow(
      "outside the tolerance",
    );
  });

  it("rejects a missing header, a missing or invalid timestamp, and a missing v1 digest", () => {
    expect(() => verifyWebhook(body, {}, secret, { now })).toThrow("Missing Service-Signature header");
    expect(() => verifyWebhook(body, headersFor(`v1=${sign(secret, t0, body)}`), secret, { now })).toThrow("no valid timestamp");
    expect(() => verifyWebhook(body, headersFor(`t=soon,v1=${sign(secret, t0, body)}`), secret, { now })).toThrow("no valid timestamp");
    expect(() => verifyWebhook(body, headersFor(`t=${t0}`), secret, { now })).toThrow("Service-Signature has no v1 digest");
    expect(() => verifyWebhook(body, headersFor(`t=${t0},v0=${sign(secret, t0, body)}`), secret, { now })).toThrow("no v1 digest");
  });

  it("accepts any of several v1 digests (rotation) and any of several receiver secrets", () => {
    const previous = generateSecret();
    const headers = signatureHeaders({ deliveryId: "whd_1", eventType: "payment.completed", body, secrets: [secret, previous], timestamp: t0 });
    expect(headers["service-signature"]!.split(",").filter((p) => p.startsWith("v1="))).toHaveLength(2);
    expect(verifyWebhook(body, headers, previous, { now }).id).toBe("evt_1");
    expect(verifyWebhook(body, headersFor(`t=${t0},v1=${sign(previous, t0, body)}`), [secret, previous], { now }).id).toBe("evt_1");
  });
});

describe("secrets", () => {
  it("are whsec_ plus base64 of 32 random bytes, previewed masked", () => {
    const s = generateSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32);
    expect(maskSecret(s)).toBe(`whsec_${s.slice(6, 10)}…${s.slice(-4)}`);
    expect(generateSecret()).not.toBe(s);
  });
});

describe("isPrivateAddress", () => {
  it("refuses loopback, private, link-local, metadata and reserved addresses, v4 and v6", () => {
    for (const address of [
      "127.0.0.1", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
      "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1", "::1", "::", "fe80::1", "fd00:ec2::254", "fc00::1",
      "2001:db8::1", "not-an-address",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it("finding 7: judges the IPv4 address inside mapped, compatible, NAT64, 6to4 and Teredo forms", () => {
    for (const address of [
      "::127.0.0.1", // IPv4-compatible
      "::ffff:127.0.0.1", "::ffff:10.0.0.1", // IPv4-mapped
      "::ffff:0:7f00:1", // IPv4-translated
      "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", // NAT64
      "64:ff9b:1::a9fe:a9fe", "64:ff9b:1::808:808", // local-use NAT64: refused whole
      "2002:a9fe:a9fe::", "2002:7f00:1::1", // 6to4
      "2001:0:808:808::80ff:fffe", "2001:0:a00:1::f7f7:f7f7", // Teredo: private client, private server
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it("allows public addresses, in every form that carries one", () => {
    for (const address of [
      "93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "::8.8.8.8", "64:ff9b::808:808",
      "2002:808:808::1", "2001:0:808:808::f7f7:f7f7",
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe("WEBHOOK_SECRET_KEYS", () => {
  it("takes 32-byte keys as base64, base64url or hex, and refuses anything else without echoing it", () => {
    const key = randomBytes(32);
    const keys = [key.toString("base64"), key.toString("base64url"), key.toString("hex")].join(", ");
    expect(loadConfig({ WEBHOOK_SECRET_KEYS: keys }).webhookSecretKeys).toEqual([key, key, key]);
    expect(loadConfig({}).webhookSecretKeys).toEqual([]);
    for (const bad of ["not-a-key", randomBytes(16).toString("base64"), `${key.toString("hex")},short`]) {
      let error: unknown;
      try {
        loadConfig({ WEBHOOK_SECRET_KEYS: bad });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/WEBHOOK_SECRET_KEYS: each key must be 32 bytes, as base64 or 64 hex digits/);
      expect((error as Error).message).not.toContain(bad.split(",")[0]!.slice(0, 12));
    }
  });

  it("without keys: a key file next to the SQLite database, or in ./data with PostgreSQL", () => {
    expect(loadConfig({ DATABASE_URL: "file:/var/lib/pay/pay.db" }).webhookSecretKeyFile).toBe("/var/lib/pay/webhook-secret.key");
    expect(loadConfig({ DATABASE_URL: "postgresql://u@db/pay" }).webhookSecretKeyFile).toBe(resolve("data", "webhook-secret.key"));
  });
});
