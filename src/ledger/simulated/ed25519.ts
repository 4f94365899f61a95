// Ed25519 through Node's native crypto. The SDK's Keypair.sign/verify run in pure JavaScript and
// cost milliseconds each, which would dominate a ledger close under load; the signatures and the
// verdicts are the same (Ed25519 is deterministic), only much faster.
import { type KeyObject, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import type { Keypair } from "@stellar/stellar-sdk";

// DER prefixes that wrap a raw 32-byte Ed25519 key as SPKI (public) or PKCS#8 (private).
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

const publicKeys = new Map<string, KeyObject>();

function publicKeyObject(raw: Buffer): KeyObject {
  const id = raw.toString("hex");
  let key = publicKeys.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
    if (publicKeys.size > 10_000) publicKeys.clear(); // bounded; recreating a key is cheap
    publicKeys.set(id, key);
  }
  return key;
}

/** Is `signature` a valid Ed25519 signature of `message` by this raw public key? Never throws. */
export function verifyEd25519(rawPublicKey: Buffer, message: Buffer, signature: Buffer): boolean {
  if (rawPublicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return verify(null, message, publicKeyObject(rawPublicKey), signature);
  } catch {
    return false;
  }
}

/** The Ed25519 signature Keypair.sign would make, computed natively. */
export function signEd25519(keypair: Keypair, message: Buffer): Buffer {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, keypair.rawSecretKey()]), format: "der", type: "pkcs8" });
  return sign(null, message, privateKey);
}
