// Passwords are hashed with argon2id (memory-hard). The cost is chosen so that one login takes about
// 100 ms on a 2-core machine (bench/login.ts prints the figure): slow for a guesser, quick for a
// person. The PHC string keeps the salt and cost, so a later cost change still verifies old hashes.
import { type Algorithm, hash, verify } from "@node-rs/argon2";

/** Algorithm.Argon2id: the library's enum is a const enum, which isolated modules cannot read */
const ARGON2ID = 2 as Algorithm;
const COST = { algorithm: ARGON2ID, memoryCost: 65536, timeCost: 3, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

export const hashPassword = (password: string) => hash(password, COST);

// Verified when the email names no user, so that an unknown email takes as long as a wrong password.
let dummyHash: Promise<string> | null = null;

/** Whether `password` matches `passwordHash`; with no hash (unknown user), false after the same work. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    dummyHash ??= hashPassword("not anyone's password");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
