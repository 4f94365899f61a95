// A configurable order book: offers to sell one asset for another at a fixed price. Path payments
// cross it exactly as they cross Stellar's DEX (best price first, older offer first at equal price),
// in integer stroops with rounding in the offer owner's favour, and path finding quotes the same
// computation, so a quote from /paths is exactly what a path payment submitted right after pays.
//
// The offers are external liquidity: their owner's balances are not tracked (a market maker with
// deep pockets). Crossing an offer reduces its remaining amount; an exhausted offer disappears.
import type { Asset } from "@stellar/stellar-sdk";
import { INT64_MAX, type Price, ceilDiv } from "./amounts.ts";
import { assetKey, sameAsset } from "./assets.ts";

export interface Offer {
  id: bigint;
  seller: string;
  selling: Asset;
  buying: Asset;
  /** Units of `buying` per unit of `selling`. */
  price: Price;
  /** Remaining amount of `selling`, in stroops. */
  amount: bigint;
}

/** One offer crossed by a taker. Named from the offer owner's side, as ClaimOfferAtom does. */
export interface Fill {
  offer: Offer;
  /** Amount of offer.selling the taker received. */
  amountSold: bigint;
  /** Amount of offer.buying the taker paid. */
  amountBought: bigint;
}

const pairKey = (selling: Asset, buying: Asset) => `${assetKey(selling)}>${assetKey(buying)}`;

/** Cheaper for the taker first; at the same price the older offer first. */
const byBestPrice = (a: Offer, b: Offer): number => {
  const lhs = a.price.n * b.price.d;
  const rhs = b.price.n * a.price.d;
  if (lhs !== rhs) return lhs < rhs ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

export class OrderBook {
  private readonly offers = new Map<bigint, Offer>();
  private nextId = 1n;

  add(offer: Omit<Offer, "id">): Offer {
    const stored: Offer = { ...offer, id: this.nextId++ };
    this.offers.set(stored.id, stored);
    return stored;
  }

  remove(id: bigint): boolean {
    return this.offers.delete(id);
  }

  get(id: bigint): Offer | undefined {
    return this.offers.get(id);
  }

  all(): Offer[] {
    return [...this.offers.values()];
  }

  /** Offers selling `selling` for `buying`, best for a taker first. */
  offersFor(selling: Asset, buying: Asset): Offer[] {
    const key = pairKey(selling, buying);
    return this.all()
      .filter((offer) => pairKey(offer.selling, offer.buying) === key)
      .sort(byBestPrice);
  }

  /** Every asset that appears in the book: the candidates for an intermediate hop. */
  assets(): Asset[] {
    const seen = new Map<string, Asset>();
    for (const offer of this.offers.values()) {
      seen.set(assetKey(offer.selling), offer.selling);
      seen.set(assetKey(offer.buying), offer.buying);
    }
    return [...seen.values()];
  }

  setRemaining(id: bigint, amount: bigint): void {
    const offer = this.offers.get(id);
    if (!offer) return;
    if (amount <= 0n) this.offers.delete(id);
    else offer.amount = amount;
  }
}

/**
 * Tentative crossings on top of the book or of another overlay: remaining amounts change here and
 * reach the parent only on commit (so a failed path payment leaves the book untouched).
 */
export class OrderBookOverlay {
  private readonly remaining = new Map<bigint, bigint>();
  private readonly root: OrderBook;

  constructor(private readonly parent: OrderBook | OrderBookOverlay) {
    this.root = parent instanceof OrderBookOverlay ? parent.root : parent;
  }

  remainingOf(offer: Offer): bigint {
    return this.remaining.get(offer.id) ?? (this.parent instanceof OrderBookOverlay ? this.parent.remainingOf(offer) : offer.amount);
  }

  offersFor(selling: Asset, buying: Asset): Offer[] {
    return this.root.offersFor(selling, buying).filter((offer) => this.remainingOf(offer) > 0n);
  }

  take(offer: Offer, amount: bigint): void {
    this.remaining.set(offer.id, this.remainingOf(offer) - amount);
  }

  commit(): void {
    for (const [id, amount] of this.remaining) {
      if (this.parent instanceof OrderBookOverlay) this.parent.remaining.set(id, amount);
      else this.parent.setRemaining(id, amount);
    }
    this.remaining.clear();
  }
}

/** Buys exactly `amount` of `want`, paying with `pay`. Null when the book is too thin. */
function buyExactly(view: OrderBookOverlay, want: Asset, pay: Asset, amount: bigint) {
  const fills: Fill[] = [];
  let needed = amount;
  let paid = 0n;
  for (const offer of view.offersFor(want, pay)) {
    if (needed === 0n) break;
    const take = needed < view.remainingOf(offer) ? needed : view.remainingOf(offer);
    // The taker pays the offer's price rounded up: the offer never receives less than it asked.
    const cost = ceilDiv(take * offer.price.n, offer.price.d);
    view.take(offer, take);
    fills.push({ offer, amountSold: take, amountBought: cost });
    needed -= take;
    paid += cost;
  }
  if (needed > 0n || paid > INT64_MAX) return null;
  return { paid, fills };
}

/** Sells exactly `amount` of `give` for as much `receive` as the book offers. Null when too thin. */
function sellExactly(view: OrderBookOverlay, give: Asset, receive: Asset, amount: bigint) {
  const fills: Fill[] = [];
  let left = amount;
  let received = 0n;
  for (const offer of view.offersFor(receive, give)) {
    if (left === 0n) break;
    const available = view.remainingOf(offer);
    const costOfAll = ceilDiv(available * offer.price.n, offer.price.d);
    if (costOfAll <= left) {
      view.take(offer, available);
      fills.push({ offer, amountSold: available, amountBought: costOfAll });
      left -= costOfAll;
      received += available;
    } else {
      // Partial fill: the taker spends everything left and gets the rounded-down counter amount.
      const got = (left * offer.price.d) / offer.price.n;
      if (got === 0n) break;
      view.take(offer, got);
      fills.push({ offer, amountSold: got, amountBought: left });
      left = 0n;
      received += got;
    }
  }
  if (left > 0n || received > INT64_MAX) return null;
  return { received, fills };
}

/**
 * What it costs in chain[0] to deliver exactly `destAmount` of the last asset, converting hop by hop
 * along chain ([send asset, ...path, destination asset]). Hops between equal assets cost nothing.
 */
export function convertStrictReceive(view: OrderBookOverlay, chain: Asset[], destAmount: bigint) {
  const fills: Fill[] = [];
  let needed = destAmount;
  for (let i = chain.length - 1; i > 0; i--) {
    const from = chain[i - 1]!;
    const to = chain[i]!;
    if (sameAsset(from, to)) continue;
    const hop = buyExactly(view, to, from, needed);
    if (!hop) return null;
    fills.unshift(...hop.fills);
    needed = hop.paid;
  }
  return { sourceAmount: needed, fills };
}

/** What `sourceAmount` of chain[0] delivers of the last asset along chain. */
export function convertStrictSend(view: OrderBookOverlay, chain: Asset[], sourceAmount: bigint) {
  const fills: Fill[] = [];
  let amount = sourceAmount;
  for (let i = 1; i < chain.length; i++) {
    const from = chain[i - 1]!;
    const to = chain[i]!;
    if (sameAsset(from, to)) continue;
    const hop = sellExactly(view, from, to, amount);
    if (!hop) return null;
    fills.push(...hop.fills);
    amount = hop.received;
  }
  return { destAmount: amount, fills };
}

export interface PathQuote {
  source: Asset;
  sourceAmount: bigint;
  destination: Asset;
  destinationAmount: bigint;
  /** Intermediate assets, as a path payment operation's `path`. */
  path: Asset[];
}

/** Direct conversion, or one hop through any other asset in the book (XLM included). */
function candidatePaths(book: OrderBook, from: Asset, to: Asset): Asset[][] {
  if (sameAsset(from, to)) return [[]];
  const paths: Asset[][] = [[]];
  for (const middle of book.assets()) {
    if (!sameAsset(middle, from) && !sameAsset(middle, to)) paths.push([middle]);
  }
  return paths;
}

/** Every way to deliver `destAmount` of `destination` from one of `sources`, cheapest first. */
export function quoteStrictReceive(book: OrderBook, sources: Asset[], destination: Asset, destAmount: bigint): PathQuote[] {
  const quotes: PathQuote[] = [];
  for (const source of sources) {
    for (const path of candidatePaths(book, source, destination)) {
      const result = convertStrictReceive(new OrderBookOverlay(book), [source, ...path, destination], destAmount);
      if (result) quotes.push({ source, sourceAmount: result.sourceAmount, destination, destinationAmount: destAmount, path });
    }
  }
  return quotes.sort((a, b) => (a.sourceAmount < b.sourceAmount ? -1 : a.sourceAmount > b.sourceAmount ? 1 : 0));
}

/** Every way to convert `sourceAmount` of `source` into one of `destinations`, best first. */
export function quoteStrictSend(book: OrderBook, source: Asset, sourceAmount: bigint, destinations: Asset[]): PathQuote[] {
  const quotes: PathQuote[] = [];
  for (const destination of destinations) {
    for (const path of candidatePaths(book, source, destination)) {
      const result = convertStrictSend(new OrderBookOverlay(book), [source, ...path, destination], sourceAmount);
      if (result && result.destAmount > 0n) {
        quotes.push({ source, sourceAmount, destination, destinationAmount: result.destAmount, path });
      }
    }
  }
  return quotes.sort((a, b) =>
    a.destinationAmount > b.destinationAmount ? -1 : a.destinationAmount < b.destinationAmount ? 1 : 0,
  );
}
