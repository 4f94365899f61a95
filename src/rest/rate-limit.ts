// Per API key token buckets (decisions: 100 requests/s live, 25/s sandbox; 0 turns limiting off).
// A bucket holds one second of requests, so short bursts pass and sustained excess is refused.
// With several worker processes (WORKERS > 1) the buckets live in the primary process, so a key's
// limit holds across all of them.
import { coordinatorClient } from "../cluster/coordinator.ts";
import type { Clock } from "../shared/clock.ts";

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

const unlimited = (): RateDecision => ({ allowed: true, headers: {} });

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock) {}

  take(key: string, perSecond: number): RateDecision {
    if (perSecond <= 0) return unlimited();
    const now = this.clock.now().getTime();
    const bucket = this.buckets.get(key) ?? { tokens: perSecond, updatedMs: now };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.updatedMs) / 1000) * perSecond);
    bucket.updatedMs = now;
    this.buckets.set(key, bucket);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const secondsToFull = Math.ceil((perSecond - bucket.tokens) / perSecond);
    const headers: Record<string, string> = {
      "RateLimit-Limit": String(perSecond),
      "RateLimit-Remaining": String(Math.floor(bucket.tokens)),
      "RateLimit-Reset": String(secondsToFull),
    };
    if (!allowed) headers["Retry-After"] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)));
    return { allowed, headers };
  }
}

export interface RateLimit {
  take(key: string, perSecond: number): RateDecision | Promise<RateDecision>;
}

/** This process's buckets, or in a cluster worker the primary's (one IPC round trip per limited request). */
export function createRateLimiter(clock: Clock): RateLimit {
  const coordinator = coordinatorClient();
  if (!coordinator) return new RateLimiter(clock);
  return { take: (key, perSecond) => (perSecond <= 0 ? unlimited() : coordinator.takeRateToken(key, perSecond)) };
}
