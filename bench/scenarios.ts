// The measured requests. Add one by appending to `scenarios`: `prepare` runs once against the running
// service (create what the request needs) and returns the request autocannon repeats. `aim` is the
// least acceptable rate as a fraction of the bare node:http server's rate for the same request shape.
import type autocannon from "autocannon";
import { type ServiceUnderTest, benchPaymentBody } from "./lib/service.ts";

export interface BenchRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** a sequence each connection sends in turn (the bare server answers the first request's shape) */
  requests?: autocannon.Request[];
  /** when the answer is not a 2xx, e.g. a redirect */
  expectStatus?: number;
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
        body: benchPaymentBody,
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
  {
    name: "POST /api/v1/invoices, then /finalize (per request)",
    aim: 0.1,
    async prepare(service) {
      const headers = jsonHeaders(service.liveKey);
      return {
        method: "POST",
        path: "/api/v1/invoices",
        headers,
        body: JSON.stringify({ amount: "40", description: "Bench invoice" }),
        requests: [
          {
            method: "POST",
            path: "/api/v1/invoices",
            headers,
            body: JSON.stringify({ amount: "40", description: "Bench invoice" }),
            onResponse: (_status, body, context) => {
              (context as { invoiceId?: string }).invoiceId = (JSON.parse(body) as { id: string }).id;
            },
          },
          {
            method: "POST",
            headers: { authorization: headers.authorization },
            setupRequest: (request, context) => ({ ...request, path: `/api/v1/invoices/${(context as { invoiceId?: string }).invoiceId}/finalize` }),
          },
        ],
      };
    },
  },
  {
    name: "GET /c/plink_{id} (a new session and payment each visit)",
    aim: 0.1,
    async prepare(service) {
      const response = await fetch(`${service.url}/api/v1/payment-links`, {
        method: "POST",
        headers: jsonHeaders(service.liveKey),
        body: JSON.stringify({ amount: "5", description: "Bench link" }),
      });
      if (response.status !== 201) throw new Error(`creating the link failed: ${response.status} ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      return { method: "GET", path: `/c/${id}`, expectStatus: 303 };
    },
  },
];
