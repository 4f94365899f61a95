// Per API key token buckets (decisions: 100 requests/s live, 25/s sandbox; 0 turns limiting off).
// A bucket holds one second of requests, so short bursts pass and sustained excess is refused.
import type { Clock } from "../shared/clock.ts";

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock) {}

  take(key: string, perSecond: number): RateDecision {
    if (perSecond <= 0) return { allowed: true, headers: {} };
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
