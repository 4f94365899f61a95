// Amounts as the API writes them (7-decimal strings), added and compared exactly: integer stroops,
// never a float.
const SCALE = 10_000_000n;

export function toStroops(amount: string): bigint {
  const [whole = "0", fraction = ""] = amount.trim().split(".");
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(7, "0").slice(0, 7));
}

export function fromStroops(stroops: bigint): string {
  const whole = stroops / SCALE;
  const fraction = (stroops % SCALE).toString().padStart(7, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** A refund that still holds its amount of the payment (not yet succeeded, failed or canceled). */
export const refundInFlight = (status: string) => status === "pending_claim" || status === "requires_signature" || status === "submitted";
