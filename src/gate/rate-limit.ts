// Rate limits for every door (REST, GraphQL, GraphQL over SSE, payment link visits), on
// rate-limiter-flexible. Two kinds of budget, each spent in points per second:
//   - per API key (decisions: 100/s live, 25/s sandbox), one budget whichever door the key calls;
//   - per network address for anonymous callers (the payer's checkout, link visits, refused keys).
// A window of one second holds the whole budget, so a burst of one second's worth passes and
// sustained excess is refused. Where the counts live decides who shares them:
//   - PostgreSQL: a table of the service's database, so every worker on every host spends one budget;
//   - SQLite with WORKERS > 1: the primary process (RateLimiterClusterMaster, src/cluster/supervisor.ts);
//   - SQLite in one process: this process's memory.
import cluster from "node:cluster";
import ipaddr from "ipaddr.js";
import pg from "pg";
import {
  type RateLimiterAbstract,
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { type Scope, callerIdOf } from "../context.ts";
import { postgresSchema } from "../db/client.ts";
import type { LoginThrottle } from "../modules/users/reauthentication.ts";

export interface RateDecision {
  allowed: boolean;
  /** whole seconds until the budget refills; 0 when allowed */
  retryAfterSeconds: number;
  /** RateLimit-* (and Retry-After when refused) for an HTTP answer; none when the budget is off */
  headers: Record<string, string>;
}

export interface RateLimits {
  /** Spends `points` of the API key's budget (live or sandbox by the key's environment). */
  chargeKey(scope: Scope, points?: number): Promise<RateDecision>;
  /** Spends `points` of an anonymous caller's budget, counted per network address. */
  chargeAddress(address: string, points?: number): Promise<RateDecision>;
  /** Failed dashboard logins, counted per email and per address. */
  logins: LoginThrottle;
  close(): Promise<void>;
}

/**
 * Password and code guessing is slowed per account, per address and per (account, address)
 * (LoginThrottle): each attempt takes its point before the password or code is checked, so requests
 * sent together cannot exceed a budget; a success gives it back. An address the account signed in
 * from before is not held to the account's budget (only to the address's and the pair's), so
 * failures from elsewhere cannot lock the owner out where they work.
 */
const LOGIN_BUDGETS = { perEmail: 5, perAddress: 20, perEmailAndAddress: 5, windowSeconds: 15 * 60 } as const;
/**
 * How long an address stays known after a sign-in from it. Under 24.8 days: the in-memory store
 * expires keys with setTimeout, which fires at once past 2^31 ms.
 */
const KNOWN_ADDRESS_SECONDS = 20 * 24 * 60 * 60;

/**
 * The table on PostgreSQL, with the library's columns (key, points, expire); a migration makes it
 * (prisma/migrations/postgresql/0003_rate_limit_windows), so the library never tries (tableCreated).
 */
const POSTGRES_TABLE = "rate_limit_windows";
/** A worker waits this long for the primary's answer before the request goes through unlimited. */
const CLUSTER_TIMEOUT_MS = 2_000;

/**
 * What an operation costs beyond the 1 point of a read, for the work it makes the service do: a
 * link visit writes a session, a payment and an event; prepare and submit call Horizon on the
 * service's quota; the test wallet signs and submits a payment.
 */
export const OPERATION_POINTS = {
  paymentLinkVisit: 5,
  prepareCheckoutTransaction: 5,
  submitCheckoutTransaction: 5,
  payWithTestWallet: 10,
} as const;

const unlimited: RateDecision = { allowed: true, retryAfterSeconds: 0, headers: {} };

/**
 * The counting key of an address: an IPv4 address as it is (IPv4-mapped IPv6 forms included), an
 * IPv6 address by its /64 prefix, since one subscriber usually holds a whole /64 and could
 * otherwise take a fresh address for every request.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}

/** A rate in requests per second as a window: whole points per second, or one point per longer window. */
const windowOf = (perSecond: number) =>
  perSecond >= 1 ? { points: Math.floor(perSecond), duration: 1 } : { points: 1, duration: 1 / perSecond };

function decision(limit: number, res: RateLimiterRes, allowed: boolean): RateDecision {
  const resetSeconds = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(Math.max(0, res.remainingPoints)),
    "RateLimit-Reset": String(resetSeconds),
  };
  if (allowed) return { allowed, retryAfterSeconds: 0, headers };
  const retryAfterSeconds = Math.max(1, resetSeconds);
  return { allowed, retryAfterSeconds, headers: { ...headers, "Retry-After": String(retryAfterSeconds) } };
}

interface Window {
  points: number;
  /** seconds */
  duration: number;
}

interface Store {
  /** `exact`: no in-memory block past the budget, so that points given back count at once */
  limiter(keyPrefix: string, window: Window, options?: { exact?: boolean }): RateLimiterAbstract;
  close(): Promise<void>;
}

function memoryStore(): Store {
  return { limiter: (keyPrefix, window) => new RateLimiterMemory({ keyPrefix, ...window }), close: async () => {} };
}

/** Asks the primary process, which keeps the counts of all workers (RateLimiterClusterMaster). */
function clusterStore(): Store {
  return {
    limiter: (keyPrefix, window) => new RateLimiterCluster({ keyPrefix, ...window, timeoutMs: CLUSTER_TIMEOUT_MS }),
    close: async () => {},
  };
}

/**
 * Counts in the service's PostgreSQL database, on a small pool of its own (one short upsert per
 * limited request). A key that has spent its budget is refused from memory until its window ends
 * (inMemoryBlockOnConsumed), so a flood costs the database nothing; if the database cannot answer,
 * this process's own memory counts instead (insuranceLimiter).
 */
function postgresStore(databaseUrl: string): Store {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, options: `-c search_path="${postgresSchema(databaseUrl)}"` });
  // The library reports a dropped idle connection here; the pool replaces it.
  pool.on("error", () => {});
  return {
    limiter(keyPrefix, window, options) {
      return new RateLimiterPostgres({
        storeClient: pool,
        storeType: "pool",
        tableName: POSTGRES_TABLE,
        tableCreated: true,
        keyPrefix,
        ...window,
        inMemoryBlockOnConsumed: options?.exact ? 0 : window.points,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, ...window }),
      });
    },
    close: () => pool.end(),
  };
}

/** One budget per kind, each limiter made once. */
class Budget {
  protected readonly limiter: RateLimiterAbstract | null;
  protected readonly limit: number;

  constructor(store: Store, keyPrefix: string, perSecond: number) {
    this.limiter = perSecond > 0 ? store.limiter(keyPrefix, windowOf(perSecond)) : null;
    this.limit = windowOf(perSecond).points;
  }

  async charge(key: string, points: number): Promise<RateDecision> {
    if (!this.limiter) return unlimited;
    try {
      return decision(this.limit, await this.limiter.consume(key, points), true);
    } catch (error) {
      return this.refusedOrServed(error);
    }
  }

  /** The store's refusal, or (the store did not answer) the request served. */
  protected refusedOrServed(error: unknown): RateDecision {
    if (error instanceof RateLimiterRes) return decision(this.limit, error, false);
    // The shared store did not answer (the primary is busy, the database is away): serve the
    // request rather than refuse every caller because of the limiter.
    return unlimited;
  }
}

interface Lease {
  /** points reserved in the shared window and not spent yet */
  available: number;
  /** the window's points spent everywhere, as of this process's last reservation */
  consumed: number;
  endsAt: number;
}

/** Leases kept before expired ones are swept (one per key or address seen in the last second). */
const LEASES_BEFORE_SWEEP = 10_000;

/**
 * A budget kept in the database, spent a slice at a time: a process reserves a tenth of a key's
 * window in one write and spends it from memory, so nine requests in ten cost the database nothing.
 * A slice reserved and not spent is lost to the other processes until the window ends, so a key
 * whose requests are spread over H processes may be refused up to H x (slice - 1) points early;
 * it is never let through more than its budget.
 */
class LeasedBudget extends Budget {
  private readonly leases = new Map<string, Lease>();
  private readonly reserving = new Map<string, Promise<RateDecision>>();
  private readonly slice: number;

  constructor(store: Store, keyPrefix: string, perSecond: number) {
    super(store, keyPrefix, perSecond);
    this.slice = Math.max(1, Math.floor(this.limit / 10));
  }

  override async charge(key: string, points: number): Promise<RateDecision> {
    if (!this.limiter || this.slice === 1) return super.charge(key, points);
    // One reservation per key at a time: a request arriving meanwhile waits for its slice.
    for (let pending = this.reserving.get(key); pending; pending = this.reserving.get(key)) await pending;
    const lease = this.leases.get(key);
    const now = Date.now();
    if (lease && lease.endsAt > now && lease.available >= points) {
      lease.available -= points;
      const remaining = this.limit - lease.consumed + lease.available;
      return decision(this.limit, new RateLimiterRes(remaining, lease.endsAt - now, lease.consumed), true);
    }
    const reservation = this.reserve(key, points, lease && lease.endsAt > now ? lease.available : 0);
    this.reserving.set(key, reservation);
    try {
      return await reservation;
    } finally {
      this.reserving.delete(key);
    }
  }

  /** Takes a slice (or what `points` need beyond the `held` rest of the last one) from the database. */
  private async reserve(key: string, points: number, held: number): Promise<RateDecision> {
    const limiter = this.limiter!;
    const need = points - held;
    const ask = Math.max(need, this.slice);
    const now = Date.now();
    try {
      const res = await limiter.consume(key, ask);
      this.keep(key, { available: ask - need, consumed: res.consumedPoints, endsAt: now + res.msBeforeNext });
      return decision(this.limit, res, true);
    } catch (error) {
      // The window could not give a whole slice; it may still hold what this request needs (a
      // refusal from the database counts more than the budget; one from the in-memory block does not).
      if (error instanceof RateLimiterRes && error.consumedPoints > this.limit && error.consumedPoints - ask + need <= this.limit) {
        limiter.reward(key, ask - need).catch(() => {});
        const consumed = error.consumedPoints - ask + need;
        this.keep(key, { available: 0, consumed, endsAt: now + error.msBeforeNext });
        return decision(this.limit, new RateLimiterRes(this.limit - consumed, error.msBeforeNext, consumed), true);
      }
      return this.refusedOrServed(error);
    }
  }

  private keep(key: string, lease: Lease) {
    if (this.leases.size >= LEASES_BEFORE_SWEEP) {
      const now = Date.now();
      for (const [k, l] of this.leases) if (l.endsAt <= now) this.leases.delete(k);
    }
    this.leases.set(key, lease);
  }
}

export function createRateLimits(config: Config): RateLimits {
  const store = config.dialect === "postgresql" ? postgresStore(config.databaseUrl) : cluster.isWorker ? clusterStore() : memoryStore();
  const BudgetOfStore = config.dialect === "postgresql" ? LeasedBudget : Budget;
  const live = new BudgetOfStore(store, "key_live", config.rateLimits.live);
  const sandbox = new BudgetOfStore(store, "key_sandbox", config.rateLimits.sandbox);
  const publicBudget = new BudgetOfStore(store, "address", config.rateLimits.public);
  return {
    logins: createLoginThrottle(store),
    chargeKey: (scope, points = 1) => (scope.environment === "production" ? live : sandbox).charge(callerIdOf(scope), points),
    chargeAddress: (address, points = 1) => publicBudget.charge(addressBucket(address), points),
    close: () => store.close(),
  };
}

/** A budget an attempt spends from: its limiter, the key it counts under, its points per window. */
type LoginBudget = [RateLimiterAbstract, string, number];

function createLoginThrottle(store: Store): LoginThrottle {
  const window = (points: number) => ({ points, duration: LOGIN_BUDGETS.windowSeconds });
  const exact = { exact: true };
  const byEmail = store.limiter("login_email", window(LOGIN_BUDGETS.perEmail), exact);
  const byAddress = store.limiter("login_address", window(LOGIN_BUDGETS.perAddress), exact);
  const byPair = store.limiter("login_pair", window(LOGIN_BUDGETS.perEmailAndAddress), exact);
  // The addresses each account signed in from: kept where the counts are, so every worker and host
  // knows them. A record's points are the sign-ins seen; only its presence matters.
  const known = store.limiter("login_known", { points: Number.MAX_SAFE_INTEGER, duration: KNOWN_ADDRESS_SECONDS }, exact);
  // A store that does not answer counts nothing: logins go on (argon2's cost still slows guessing).
  const quietly = <T>(work: Promise<T>) => work.catch((error: unknown) => (error instanceof RateLimiterRes ? error : null));
  return {
    async attempt(email, rawAddress) {
      const address = addressBucket(rawAddress);
      const pair = `${email} ${address}`;
      const knownAddress = (await quietly(known.get(pair))) !== null;
      const budgets: LoginBudget[] = [
        [byAddress, address, LOGIN_BUDGETS.perAddress],
        [byPair, pair, LOGIN_BUDGETS.perEmailAndAddress],
        ...(knownAddress ? [] : [[byEmail, email, LOGIN_BUDGETS.perEmail] satisfies LoginBudget]),
      ];
      const spent = await Promise.all(budgets.map(([limiter, key]) => quietly(limiter.consume(key))));
      const giveBackExcept = (kept?: RateLimiterAbstract) =>
        Promise.all(budgets.map(([limiter, key], i) => (spent[i] && limiter !== kept ? quietly(limiter.reward(key)) : null))).then(() => {});
      const giveBack = () => giveBackExcept();
      const refusals = budgets.flatMap(([, , limit], i) => {
        const res = spent[i];
        return res && res.consumedPoints > limit ? [decision(limit, res, false)] : [];
      });
      if (refusals.length) {
        // Refused before any work: its points go back, so that the counts stay the attempts evaluated.
        await giveBack();
        return { allowed: false, retryAfterSeconds: Math.max(...refusals.map((d) => d.retryAfterSeconds)) };
      }
      return {
        allowed: true,
        giveBack,
        async succeeded() {
          // The pair's earlier failures were this person's own typos: they are forgotten. The
          // email's are not, or each sign-in of the owner would hand a guesser elsewhere new tries.
          // (Its point is not given back as well: a reward landing after the delete would start the pair below zero.)
          await Promise.all([giveBackExcept(byPair), quietly(byPair.delete(pair)), quietly(known.consume(pair))]);
        },
      };
    },
  };
}
