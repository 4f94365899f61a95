// Passwords are hashed with argon2id (memory-hard). The cost is chosen so that one login takes about
// 100 ms on a 2-core machine (bench/login.ts prints the figure): slow for a guesser, quick for a
// person. The PHC string keeps the salt and cost, so a later cost change still verifies old hashes.
import { availableParallelism } from "node:os";
import { type Algorithm, hash, verify } from "@node-rs/argon2";
import { tooManyRequests } from "../../errors.ts";

/** Algorithm.Argon2id: the library's enum is a const enum, which isolated modules cannot read */
const ARGON2ID = 2 as Algorithm;
const COST = { algorithm: ARGON2ID, memoryCost: 65536, timeCost: 3, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

/**
 * Each argon2 run holds 64 MiB and a core for ~100 ms: a flood of logins must not take the
 * process's memory or starve the API. So at most one run per core but one at a time (one core is
 * left to the event loop: on 2 cores, two runs at once took the merchant's GET p99 from 2 to 980 ms);
 * a caller beyond them waits its turn, at most WAIT_MS and behind at most MAX_WAITING others, then
 * is told to retry.
 */
const AT_ONCE = Math.max(1, availableParallelism() - 1);
const WAIT_MS = 3_000;
const MAX_WAITING = 64;

export const busy = () => tooManyRequests("Too many sign-ins at once; try again in a few seconds");

class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /** Whether a caller would get a turn or a place in line now. */
  hasRoom(): boolean {
    return this.running < AT_ONCE || this.waiting.length < MAX_WAITING;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < AT_ONCE) this.running++;
    else await this.turn();
    try {
      return await work();
    } finally {
      // The slot passes to the next in line, or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private turn(): Promise<void> {
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(wake), 1);
        reject(busy());
      }, WAIT_MS);
      this.waiting.push(wake);
    });
  }
}

const argon2 = new Turns();

/**
 * Whether argon2 could take one more caller now. Asked before a sign-in attempt takes its points: in
 * a flood, the callers who would only be refused as busy cost no budget reads or writes either.
 */
export const passwordWorkHasRoom = () => argon2.hasRoom();

/** The PHC string of a new password; RATE_LIMITED when argon2 is too busy to run it soon. */
export const hashPassword = (password: string) => argon2.run(() => hash(password, COST));

// Verified when the email names no user, so that an unknown email takes as long as a wrong password.
let dummyHash: Promise<string> | null = null;

/**
 * Whether `password` matches `passwordHash`; with no hash (unknown user), false after the same
 * work. RATE_LIMITED when argon2 is too busy to run it soon.
 */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    dummyHash ??= hashPassword("not anyone's password").catch((error: unknown) => {
      dummyHash = null;
      throw error;
    });
    const dummy = await dummyHash;
    await argon2.run(() => verify(dummy, password).catch(() => false));
    return false;
  }
  return argon2.run(() => verify(passwordHash, password).catch(() => false));
}
