import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` uniformly random base62 characters (rejection sampling keeps them unbiased). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
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
