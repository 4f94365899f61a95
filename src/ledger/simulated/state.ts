// The ledger's account entries, and a copy-on-write overlay so that a transaction's operations are
// applied all-or-nothing: operations write into the overlay, which is committed only if every one
// of them succeeds (as stellar-core rolls back a failed transaction's operations).
import type { Asset, xdr } from "@stellar/stellar-sdk";
import { assetKey } from "./assets.ts";
import { OrderBook, OrderBookOverlay } from "./order-book.ts";

/** Network parameters, as on the real networks today. */
export const BASE_FEE = 100n;
export const BASE_RESERVE = 5_000_000n; // 0.5 XLM

export interface Trustline {
  asset: Asset;
  balance: bigint;
  limit: bigint;
  lastModifiedLedger: number;
}

export interface AccountEntry {
  id: string;
  sequence: bigint;
  /** Native balance in stroops. */
  balance: bigint;
  /** Keyed by assetKey(). */
  trustlines: Map<string, Trustline>;
  data: Map<string, Buffer>;
  /** reserves this account pays for entries it sponsors (a claimable balance: one per claimant) */
  numSponsoring: number;
  lastModifiedLedger: number;
  lastModifiedTime: Date;
  /** When the sequence number last changed (for minSeqAge / minSeqLedgerGap preconditions). */
  sequenceLedger: number;
  sequenceTime: bigint;
}

export const subentryCount = (account: AccountEntry): number => account.trustlines.size + account.data.size;

/** (2 + subentries + sponsored entries) base reserves: the native balance an account must keep. */
export const minimumBalance = (account: AccountEntry, extraSubentries = 0): bigint =>
  (2n + BigInt(subentryCount(account) + account.numSponsoring + extraSubentries)) * BASE_RESERVE;

/** A claimable balance: money set aside for its claimants, each of whom may claim it while their predicate holds. */
export interface ClaimableBalanceEntry {
  /** hex of the ClaimableBalanceId XDR, as Horizon shows it ("00000000" + the hash) */
  id: string;
  asset: Asset;
  amount: bigint;
  /** each claimant's predicate, relative times already made absolute (as stellar-core does) */
  claimants: { destination: string; predicate: xdr.ClaimPredicate }[];
  /** who pays its reserve: the creator */
  sponsor: string;
  lastModifiedLedger: number;
}

/** Native balance above the reserve: what payments and fees may spend. */
export const availableBalance = (account: AccountEntry): bigint => account.balance - minimumBalance(account);

export const trustlineOf = (account: AccountEntry, asset: Asset): Trustline | undefined =>
  account.trustlines.get(assetKey(asset));

function cloneAccount(account: AccountEntry): AccountEntry {
  return {
    ...account,
    trustlines: new Map([...account.trustlines].map(([key, line]) => [key, { ...line }])),
    data: new Map(account.data),
  };
}

/** A new account as createAccount makes it: its sequence starts at ledger << 32, as on Stellar. */
export function newAccount(id: string, balance: bigint, ledger: number, closeTime: Date): AccountEntry {
  return {
    id,
    sequence: BigInt(ledger) << 32n,
    balance,
    trustlines: new Map(),
    data: new Map(),
    numSponsoring: 0,
    lastModifiedLedger: ledger,
    lastModifiedTime: closeTime,
    sequenceLedger: ledger,
    sequenceTime: BigInt(Math.floor(closeTime.getTime() / 1000)),
  };
}

/** The committed ledger: account entries and the order book. */
export class LedgerState {
  readonly accounts = new Map<string, AccountEntry>();
  readonly claimableBalances = new Map<string, ClaimableBalanceEntry>();
  readonly book = new OrderBook();
}

/**
 * Tentative changes on top of the ledger or of another overlay. A transaction's operations run in
 * one overlay, each operation in a child of it: a failed operation's child is dropped (as
 * stellar-core rolls back a failed operation), and the transaction's overlay is committed only if
 * every operation succeeded.
 */
export class LedgerOverlay {
  /** accounts written (an entry) or removed by a merge (null) */
  private readonly changed = new Map<string, AccountEntry | null>();
  /** claimable balances created (an entry) or claimed (null) */
  private readonly balancesChanged = new Map<string, ClaimableBalanceEntry | null>();
  readonly book: OrderBookOverlay;

  constructor(private readonly parent: LedgerState | LedgerOverlay) {
    this.book = new OrderBookOverlay(parent.book);
  }

  child(): LedgerOverlay {
    return new LedgerOverlay(this);
  }

  /** Read-only view of the account's current entry. Do not mutate it; use account(). */
  peek(id: string): AccountEntry | undefined {
    if (this.changed.has(id)) return this.changed.get(id) ?? undefined;
    return this.parent instanceof LedgerOverlay ? this.parent.peek(id) : this.parent.accounts.get(id);
  }

  /** A writable copy of the account, or undefined if it does not exist (yet). */
  account(id: string): AccountEntry | undefined {
    const changed = this.changed.get(id);
    if (changed) return changed;
    const base = this.peek(id);
    if (!base) return undefined;
    const copy = cloneAccount(base);
    this.changed.set(id, copy);
    return copy;
  }

  exists(id: string): boolean {
    return this.peek(id) !== undefined;
  }

  claimableBalance(id: string): ClaimableBalanceEntry | undefined {
    if (this.balancesChanged.has(id)) return this.balancesChanged.get(id) ?? undefined;
    return this.parent instanceof LedgerOverlay ? this.parent.claimableBalance(id) : this.parent.claimableBalances.get(id);
  }

  /** Creates (an entry) or removes (null) a claimable balance. */
  setClaimableBalance(id: string, entry: ClaimableBalanceEntry | null): void {
    this.balancesChanged.set(id, entry);
  }

  create(entry: AccountEntry): void {
    this.changed.set(entry.id, entry);
  }

  /** Removes the account (an account merge). */
  remove(id: string): void {
    this.changed.set(id, null);
  }

  /** Hands the changes to the parent; at the top, writes them to the ledger stamped with `ledger`. */
  commit(ledger: number, closeTime: Date): void {
    if (this.parent instanceof LedgerOverlay) {
      for (const [id, entry] of this.changed) this.parent.changed.set(id, entry);
      for (const [id, entry] of this.balancesChanged) this.parent.balancesChanged.set(id, entry);
    } else {
      for (const [id, entry] of this.changed) {
        if (!entry) {
          this.parent.accounts.delete(id);
          continue;
        }
        stampModified(this.parent.accounts.get(id), entry, ledger, closeTime);
        this.parent.accounts.set(id, entry);
      }
      for (const [id, entry] of this.balancesChanged) {
        if (entry) this.parent.claimableBalances.set(id, { ...entry, lastModifiedLedger: ledger });
        else this.parent.claimableBalances.delete(id);
      }
    }
    this.changed.clear();
    this.balancesChanged.clear();
    this.book.commit();
  }
}

/** Sets last_modified_ledger on the entry and the trustlines that differ from `before`. */
function stampModified(before: AccountEntry | undefined, entry: AccountEntry, ledger: number, closeTime: Date): void {
  let modified =
    !before ||
    before.balance !== entry.balance ||
    before.sequence !== entry.sequence ||
    before.trustlines.size !== entry.trustlines.size ||
    before.data.size !== entry.data.size ||
    before.numSponsoring !== entry.numSponsoring;
  for (const [key, line] of entry.trustlines) {
    const old = before?.trustlines.get(key);
    if (!old || old.balance !== line.balance || old.limit !== line.limit) {
      line.lastModifiedLedger = ledger;
      modified = true;
    }
  }
  for (const [key, value] of entry.data) {
    if (!before?.data.get(key)?.equals(value)) modified = true;
  }
  if (modified) {
    entry.lastModifiedLedger = ledger;
    entry.lastModifiedTime = closeTime;
  }
}
