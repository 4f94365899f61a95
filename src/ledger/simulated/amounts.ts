// Money inside the simulated network is integer stroops (bigint); the outside world sees Horizon's
// 7-decimal strings. Prices are exact fractions. No floating point anywhere, so balances, fees and
// order-book fills reproduce to the stroop. The service has its own (src/shared/money.ts) on purpose:
// the network stands apart from what it tests (.dependency-cruiser.cjs, simulated-network-stands-alone).

const STROOPS_PER_UNIT = 10_000_000n;
/** Stellar amounts are int64: the largest balance or limit an account can hold. */
export const INT64_MAX = 9_223_372_036_854_775_807n;

const AMOUNT = /^\d+(\.\d{1,7})?$/;

export class InvalidAmountError extends Error {}

/** "12.5" -> 125000000n. Rejects signs, exponents and more than 7 decimals instead of rounding. */
export function parseAmount(amount: string): bigint {
  if (!AMOUNT.test(amount)) throw new InvalidAmountError(`invalid amount: ${JSON.stringify(amount)}`);
  const [whole = "0", fraction = ""] = amount.split(".");
  const stroops = BigInt(whole) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, "0"));
  if (stroops > INT64_MAX) throw new InvalidAmountError(`amount too large: ${amount}`);
  return stroops;
}

/** 125000000n -> "12.5000000", the form Horizon uses for every amount. */
export function formatAmount(stroops: bigint): string {
  const sign = stroops < 0n ? "-" : "";
  const abs = stroops < 0n ? -stroops : stroops;
  return `${sign}${abs / STROOPS_PER_UNIT}.${(abs % STROOPS_PER_UNIT).toString().padStart(7, "0")}`;
}

/** A price as Stellar stores it: n/d units of the buying asset per unit of the selling asset. */
export interface Price {
  n: bigint;
  d: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** Accepts "n/d", a decimal string ("0.25") or {n, d}; always reduced and strictly positive. */
export function parsePrice(price: string | { n: number | bigint; d: number | bigint }): Price {
  let n: bigint;
  let d: bigint;
  if (typeof price === "object") {
    n = BigInt(price.n);
    d = BigInt(price.d);
  } else if (/^\d+\/\d+$/.test(price)) {
    const [num = "0", den = "0"] = price.split("/");
    n = BigInt(num);
    d = BigInt(den);
  } else if (/^\d+(\.\d+)?$/.test(price)) {
    const [whole = "0", fraction = ""] = price.split(".");
    n = BigInt(whole + fraction);
    d = 10n ** BigInt(fraction.length);
  } else {
    throw new InvalidAmountError(`invalid price: ${JSON.stringify(price)}`);
  }
  if (n <= 0n || d <= 0n) throw new InvalidAmountError(`price must be positive: ${JSON.stringify(price)}`);
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

export const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
