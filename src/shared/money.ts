// Money is integer stroops (1 XLM = 10^7 stroops) inside and 7-decimal strings outside. Never a float.

const STROOPS_PER_UNIT = 10_000_000n;
/** The largest amount Stellar can represent: 2^63 - 1 stroops. */
export const MAX_STROOPS = 9_223_372_036_854_775_807n;
export const AMOUNT_PATTERN = /^\d+(\.\d{1,7})?$/;
export const AMOUNT_PATTERN_TEXT = "^\\d+(\\.\\d{1,7})?$";

/** Parses a StellarAmount string that already matched AMOUNT_PATTERN. */
export function toStroops(amount: string): bigint {
  const [whole = "0", fraction = ""] = amount.split(".");
  return BigInt(whole) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, "0"));
}

export function formatStroops(stroops: bigint): string {
  const sign = stroops < 0n ? "-" : "";
  const abs = stroops < 0n ? -stroops : stroops;
  return `${sign}${abs / STROOPS_PER_UNIT}.${(abs % STROOPS_PER_UNIT).toString().padStart(7, "0")}`;
}

/** MAX_STROOPS as messages quote it: 922337203685.4775807. */
export const MAX_AMOUNT = formatStroops(MAX_STROOPS);

/** At most MAX_STROOPS: no ledger amount, and no column, holds more. */
export const capStroops = (stroops: bigint) => (stroops > MAX_STROOPS ? MAX_STROOPS : stroops);

/** A positive decimal as a scaled integer: "12.5" -> { value: 125n, scale: 1 }. */
function toScaled(decimal: string): { value: bigint; scale: number } {
  const [whole = "0", fraction = ""] = decimal.split(".");
  return { value: BigInt(whole + fraction), scale: fraction.length };
}

/**
 * How many stroops of an asset buy `pricingAmount` of a currency when one unit of the asset costs
 * `price` of it. Rounded up to the next stroop, so the merchant never receives less than the price.
 */
export function convertToStroops(pricingAmount: string, price: string): bigint {
  const a = toScaled(pricingAmount);
  const p = toScaled(price);
  // stroops = a.value / 10^a.scale / (p.value / 10^p.scale) * 10^7
  const numerator = a.value * 10n ** BigInt(p.scale) * STROOPS_PER_UNIT;
  const denominator = p.value * 10n ** BigInt(a.scale);
  return (numerator + denominator - 1n) / denominator;
}

/**
 * What `stroops` of an asset are worth when one unit of it costs `price` of a currency, in
 * ten-millionths of the currency (formatStroops writes them as a 7-decimal string); rounded half up.
 */
export function valueAtPrice(stroops: bigint, price: string): bigint {
  const p = toScaled(price);
  const scale = 10n ** BigInt(p.scale);
  return (stroops * p.value * 2n + scale) / (2n * scale);
}

/** A normalized decimal string with up to 7 places, trailing zeros kept to 7 (as amounts are). */
export function normalizeDecimal(decimal: string): string {
  return formatStroops(toStroops(decimal));
}
