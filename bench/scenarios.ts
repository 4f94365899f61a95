// The measured requests. Add one by appending to `scenarios`: `prepare` runs once against the running
// service (create what the request needs) and returns the request autocannon repeats. `aim` is the
// least acceptable rate as a fraction of the bare node:http server's rate for the same request shape.
import type { ServiceUnderTest } from "./lib/service.ts";

export interface BenchRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario {
  name: string;
  aim: number;
  prepare(service: ServiceUnderTest): Promise<BenchRequest>;
}

const jsonHeaders = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });

export const scenarios: Scenario[] = [
  {
    name: "POST /api/v1/payments",
    aim: 0.1,
    async prepare(service) {
      return {
        method: "POST",
        path: "/api/v1/payments",
        headers: jsonHeaders(service.liveKey),
        body: JSON.stringify({ amount: "12.5", description: "Bench order", metadata: { order_id: "bench" } }),
      };
    },
  },
  {
    name: "GET /api/v1/payments/{id}",
    aim: 0.25,
    async prepare(service) {
      const response = await fetch(`${service.url}/api/v1/payments`, {
        method: "POST",
        headers: jsonHeaders(service.liveKey),
        body: JSON.stringify({ amount: "12.5" }),
      });
      if (response.status !== 201) throw new Error(`creating the payment to read failed: ${response.status} ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      return { method: "GET", path: `/api/v1/payments/${id}`, headers: { authorization: `Bearer ${service.liveKey}` } };
    },
  },
];
