// Horizon's paging tokens are "TOIDs": one int64 that orders every ledger, transaction and operation
// (ledger << 32 | application order of the transaction << 12 | operation order). Clients treat them
// as opaque strings, but because they are ordered numbers, "cursor is exclusive" is a comparison.

export const toid = (ledger: number, txIndex: number, opIndex: number): bigint =>
  (BigInt(ledger) << 32n) | (BigInt(txIndex) << 12n) | BigInt(opIndex);

/** The last token of a ledger: `cursor=now` starts right after it. */
export const endOfLedger = (ledger: number): bigint => toid(ledger + 1, 0, 0) - 1n;

/** Index of the first item whose token is greater than `cursor` (items sorted ascending). */
export function firstAfter<T>(items: readonly T[], token: (item: T) => bigint, cursor: bigint): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (token(items[mid]!) <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
