// Webhook signing secrets are stored encrypted: AES-256-GCM under a key from the environment
// (WEBHOOK_SECRET_KEYS: the first key encrypts, every key decrypts, so a key is rotated by putting a
// new one first and dropping the old one once every secret is re-encrypted). With no key configured
// the service makes its own on first start, a key file with mode 0600 in its data directory, so the
// embedded default still runs with no setup.
//
// Stored form: v1:<key id>:<hint>:<iv>:<tag>:<ciphertext> (base64url parts). The key id (first 8 hex
// digits of the key's SHA-256) says which key opens it. The hint is what the masked preview shows
// (4 characters after whsec_, the last 4), kept in clear as card vaults keep the last 4 digits: 48 of
// the secret's 256 bits, which every reader of the endpoint sees anyway, so reads never need a key.
// A plain whsec_ value (written before secrets were encrypted) still opens; the webhook worker
// re-encrypts such values, and those under an older key, when it starts (resealWebhookSecrets).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { SECRET_PREFIX } from "./signing.ts";

const VERSION = "v1";
const HINT_LENGTH = 4;

/** A 32-byte key written as 64 hex digits or as base64 (standard or URL-safe); null if it is neither. */
export function decodeSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed, "base64");
  return bytes.length === 32 ? bytes : null;
}

interface Key {
  id: string;
  bytes: Buffer;
}

const keyOf = (bytes: Buffer): Key => ({ id: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes });

export class SecretKeyMissingError extends Error {
  constructor(readonly keyId: string) {
    super(`the webhook signing secret is encrypted with key ${keyId}, which is not configured (WEBHOOK_SECRET_KEYS)`);
    this.name = "SecretKeyMissingError";
  }
}

export interface SecretBox {
  /** how every value sealed with the current key begins */
  readonly currentPrefix: string;
  /** where the keys come from: "WEBHOOK_SECRET_KEYS", or the generated key file's path */
  readonly keySource: string;
  /** the stored form of a whsec_ secret, encrypted with the current key */
  seal(secret: string): string;
  /** the whsec_ secret of a stored value; a plain whsec_ value as it is */
  open(stored: string): string;
  /** any other text that carries a secret (a stored answer that reveals one), encrypted; `open` reads it */
  sealText(text: string): string;
  /** plain, or encrypted with a key other than the current one: to be sealed again */
  isStale(stored: string): boolean;
}

const isPlain = (stored: string) => stored.startsWith(SECRET_PREFIX);

/**
 * What reads show of a secret: enough to recognise it, too little to use it (whsec_ABCD…WXYZ). Takes
 * the secret or its stored form, sealed or plain.
 */
export function maskSecret(stored: string): string {
  const hint = isPlain(stored)
    ? stored.slice(SECRET_PREFIX.length, SECRET_PREFIX.length + HINT_LENGTH) + stored.slice(-HINT_LENGTH)
    : Buffer.from(stored.split(":")[2] ?? "", "base64url").toString("utf8");
  return `${SECRET_PREFIX}${hint.slice(0, HINT_LENGTH)}…${hint.slice(HINT_LENGTH)}`;
}

function createSecretBox(keys: Key[], keySource: string): SecretBox {
  const current = keys[0]!;
  const byId = new Map(keys.map((key) => [key.id, key]));
  /** `hint`: what the masked preview shows, kept readable beside the ciphertext */
  const encrypt = (text: string, hint: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", current.bytes, iv);
    const ciphertext = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return [VERSION, current.id, Buffer.from(hint), iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(":");
  };
  return {
    currentPrefix: `${VERSION}:${current.id}:`,
    keySource,
    seal: (secret) => encrypt(secret, secret.slice(SECRET_PREFIX.length, SECRET_PREFIX.length + HINT_LENGTH) + secret.slice(-HINT_LENGTH)),
    sealText: (text) => encrypt(text, ""),
    open(stored) {
      if (isPlain(stored)) return stored;
      const [version, keyId, , iv, tag, ciphertext] = stored.split(":");
      if (version !== VERSION || ciphertext === undefined) throw new Error("the webhook signing secret is not in a known stored form");
      const key = byId.get(keyId!);
      if (!key) throw new SecretKeyMissingError(keyId!);
      const decipher = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv!, "base64url"));
      decipher.setAuthTag(Buffer.from(tag!, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    },
    isStale: (stored) => !stored.startsWith(`${VERSION}:${current.id}:`),
  };
}

/**
 * The key file of a service with no WEBHOOK_SECRET_KEYS, made on first start. Written to a temporary
 * file and linked into place, so processes starting together all end up with the one key that won.
 */
function readOrCreateKeyFile(path: string): Buffer {
  const read = () => {
    const key = decodeSecretKey(readFileSync(path, "utf8"));
    if (!key) throw new Error(`${path} does not hold a 32-byte key (base64 or hex)`);
    return key;
  };
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(temporary, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return read();
}

/** What of the configuration (src/config.ts, which reads its keys with decodeSecretKey) the box needs. */
export interface SecretKeySettings {
  webhookSecretKeys: Buffer[];
  webhookSecretKeyFile: string;
}

const boxes = new WeakMap<SecretKeySettings, SecretBox>();

/** The secret box of a configuration (made once per configuration; the key file is read or made then). */
export function secretBoxOf(config: SecretKeySettings): SecretBox {
  let box = boxes.get(config);
  if (!box) {
    box = config.webhookSecretKeys.length > 0
      ? createSecretBox(config.webhookSecretKeys.map(keyOf), "WEBHOOK_SECRET_KEYS")
      : createSecretBox([keyOf(readOrCreateKeyFile(config.webhookSecretKeyFile))], config.webhookSecretKeyFile);
    boxes.set(config, box);
  }
  return box;
}
