// A merchant's payments through the REST API, as the ledger tests create, read and wait for them.
import { expect } from "vitest";
import { waitFor } from "./ledger.ts";
import type { TestApp } from "./test-app.ts";

export function paymentsApi(t: TestApp, key: string) {
  const readPayment = async (id: string) => (await t.api("GET", `/payments/${id}`, { key })).body;
  return {
    async createPayment(body: Record<string, unknown>) {
      const res = await t.api("POST", "/payments", { key, body });
      expect(res.status).toBe(201);
      return res.body;
    },
    readPayment,
    waitForStatus: (id: string, status: string, timeoutMs?: number) => waitFor(() => readPayment(id), (p) => p.status === status, timeoutMs),
  };
}
