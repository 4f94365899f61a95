import { describe, expect, it } from "vitest";
import { captureLog } from "./support/captured-log.ts";

describe("logger", () => {
  it("issue 14 item 4: keys, secrets, tokens and signatures never reach a log line, at any depth", () => {
    const log = captureLog();
    const failure = Object.assign(new Error("upstream refused"), { config: { headers: { Authorization: "Bearer sk_test_inerror" } } });
    log.logger.warn("something happened", {
      apiKeyId: "key_123",
      apiKey: "sk_live_toplevel",
      headers: { authorization: "Bearer sk_live_header", "content-type": "application/json" },
      endpoint: { id: "we_1", secret: "whsec_current", previousSecret: "whsec_previous" },
      attempts: [{ signature: "t=1,v1=abcdef", token: "tok_list" }],
      deep: { a: { b: { password: "hunter2", signedXdr: "AAAAsigned", key: "sk_test_deep" } } },
      error: failure,
    });
    expect(log.raw).toHaveLength(1);
    const line = log.raw[0]!;
    for (const secret of ["sk_live_toplevel", "sk_live_header", "whsec_current", "whsec_previous", "abcdef", "tok_list", "hunter2", "AAAAsigned", "sk_test_deep", "sk_test_inerror"]) {
      expect(line).not.toContain(secret);
    }
    const entry = JSON.parse(line);
    // What is not secret stays, so the line still says what happened and to whom.
    expect(entry).toMatchObject({ level: "warn", message: "something happened", apiKeyId: "key_123", endpoint: { id: "we_1" } });
    expect(entry.headers["content-type"]).toBe("application/json");
    expect(entry.headers.authorization).toBe("[redacted]");
    expect(entry.error).toMatchObject({ type: "Error", message: "upstream refused" });
    expect(entry.error.stack).toContain("upstream refused");
    expect(typeof entry.time).toBe("string");
  });

  it("issue 14 item 4: LOG_LEVEL drops the levels below it", () => {
    const log = captureLog("warn");
    log.logger.debug("d");
    log.logger.info("i");
    log.logger.warn("w");
    log.logger.error("e", { error: "a plain string stays as it is" });
    expect(log.lines().map((l) => [l.level, l.message])).toEqual([["warn", "w"], ["error", "e"]]);
    expect(log.lines()[1]!.error).toBe("a plain string stays as it is");
  });
});
