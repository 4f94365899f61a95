// Amounts leave the service as 7-decimal strings written from integer stroops (never a float).
import { describe, expect, it } from "vitest";
import { MAX_STROOPS, formatStroops, toStroops } from "../src/shared/money.ts";

describe("formatStroops", () => {
  it("writes 7 decimals", () => {
    expect(formatStroops(0n)).toBe("0.0000000");
    expect(formatStroops(1n)).toBe("0.0000001");
    expect(formatStroops(125_000_000n)).toBe("12.5000000");
    expect(formatStroops(-10_000_001n)).toBe("-1.0000001");
    expect(formatStroops(MAX_STROOPS)).toBe("922337203685.4775807");
    expect(formatStroops(9_007_199_254_740_993n)).toBe("900719925.4740993"); // past 2^53, where a float would round
    expect(formatStroops(toStroops("900719925.4740999"))).toBe("900719925.4740999");
  });
});
