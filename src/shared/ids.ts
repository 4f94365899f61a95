import { randomFillSync } from "node:crypto";

// Ids are made on every write: drawing random bytes from the OS a few at a time is a syscall each,
// so they come from a pool refilled 4 KiB at a time (as nanoid does).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `size` cryptographically random bytes (a view into the pool: use them before the next call). */
function randomBytesFromPool(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += size;
  return pool.subarray(poolOffset - size, poolOffset);
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` uniformly random characters of `alphabet` (at most 256; rejection sampling keeps them unbiased). */
export function randomFrom(alphabet: string, length: number): string {
  const usable = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytesFromPool(length * 2)) {
      if (byte < usable && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** `length` uniformly random base62 characters. */
export const randomBase62 = (length: number): string => randomFrom(BASE62, length);

export type IdPrefix = "org" | "key" | "pay" | "cs" | "plink" | "inv" | "cus" | "we" | "evt" | "whd" | "req" | "msg" | "usr" | "ses" | "uinv" | "pwr" | "aud" | "re";

export interface IdGenerator {
  newId(prefix: IdPrefix): string;
  /** a payment's memo id (and muxed account id): a decimal string under 2^63 */
  newMemoId(): string;
}

// Ids and memo ids begin with the time they were made, then go on at random. Each new row then lands
// at the end of the indexes on them, next to the rows made just before it, instead of on a random
// page of each index: a transaction writes a few shared pages rather than one per index per row. On
// SQLite this halved the cost of writing a payment (bench/). The random part alone keeps them
// unguessable; the time part tells no more than the row's created_at.

/** `ms` as 8 base62 characters, most significant first, so later ids sort after earlier ones (until the year 8889). */
function base62Time(ms: number): string {
  let out = "";
  for (let i = 0, rest = ms; i < 8; i++, rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out;
}

const MEMO_EPOCH_MS = Date.UTC(2020, 0, 1);
const MEMO_RANDOM_BITS = 22n;

/**
 * Ids: the prefix, 8 characters of time and 16 random base62 characters (95 bits).
 * Memo ids: 63 bits (some wallets read memo ids as signed), the milliseconds since 2020 (41 bits, until
 * 2089), then 22 random bits. Two payments made in the same millisecond may draw the same memo id, so
 * whatever writes a payment draws again when the database refuses it (retryOnMemoCollision).
 */
export const timeOrderedIds: IdGenerator = {
  newId: (prefix) => `${prefix}_${base62Time(Date.now())}${randomBase62(16)}`,
  newMemoId: () => {
    const random = BigInt(randomBytesFromPool(4).readUInt32BE()) & ((1n << MEMO_RANDOM_BITS) - 1n);
    return ((BigInt(Date.now() - MEMO_EPOCH_MS) << MEMO_RANDOM_BITS) | random).toString();
  },
};
