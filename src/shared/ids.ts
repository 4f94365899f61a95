import { randomFillSync } from "node:crypto";

// Ids are made on every write: drawing random bytes from the OS a few at a time is a syscall each,
// so they come from a pool refilled 4 KiB at a time (as nanoid does).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `size` cryptographically random bytes (a view into the pool: use them before the next call). */
export function randomBytesFromPool(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += size;
  return pool.subarray(poolOffset - size, poolOffset);
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` uniformly random base62 characters (rejection sampling keeps them unbiased). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytesFromPool(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export type IdPrefix = "org" | "key" | "pay" | "cs" | "plink" | "inv" | "cus" | "we" | "evt" | "whd";

export interface IdGenerator {
  newId(prefix: IdPrefix): string;
}

export const randomIds: IdGenerator = { newId: (prefix) => `${prefix}_${randomBase62(24)}` };
