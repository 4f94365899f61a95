// The read paths answer the very bytes they answered before #29 made them cheaper: a fixed set of
// payments (every shape a payment's JSON takes: issued assets, paid, refunded, late, failed, priced,
// with and without metadata and customer, both environments, equal creation times) is written with
// fixed ids and times, then REST reads, list pages and GraphQL queries are compared, status,
// content type and body byte for byte, with test/fixtures/read-answers.json, recorded from main
// before any of #29's changes. RECORD_READ_ANSWERS=1 records it anew (only when a change of the
// answers is meant: the spec and decisions.md say what they must be).
import { readFileSync, writeFileSync } from "node:fs";
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRAPHQL_PAYMENT_QUERY } from "../bench/lib/service.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

const FIXTURE = new URL("./fixtures/read-answers.json", import.meta.url);
const recording = process.env.RECORD_READ_ANSWERS === "1";

const wallet = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7)).publicKey();
const issuer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 9)).publicKey();
const payer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 11)).publicKey();
const CUSTOMER = "cus_0ReadAnswersCustomer1";
const START = Date.parse("2026-01-05T09:00:00.000Z");
const PASSPHRASE = { production: "Public Global Stellar Network ; September 2015", sandbox: "Test SDF Network ; September 2015" };

/** Payment i of the fixed set: its shape cycles through what a payment's JSON can hold. */
function fixedPayment(i: number, organizationId: string) {
  const environment = i >= 23 ? "sandbox" : "production";
  const issued = i % 4 === 1;
  const paid = i % 3 === 0;
  // Payments 10 and 11 share a creation time: the list orders them by id.
  const createdAt = new Date(START + (i === 11 ? 10 : i) * 60_000 + 123);
  return {
    id: `pay_0ReadAnswers${String(i).padStart(8, "0")}`,
    organizationId,
    environment,
    amount: BigInt(i) * 12_345_678n + 1n,
    settlementAssetCode: issued ? "USDC" : "XLM",
    settlementAssetIssuer: issued ? issuer : null,
    allowedAssets: issued ? JSON.stringify([{ code: "USDC", issuer }, { code: "XLM", issuer: null }]) : '[{"code":"XLM","issuer":null}]',
    paidAssetCode: paid ? (issued ? "USDC" : "XLM") : null,
    paidAssetIssuer: paid && issued ? issuer : null,
    status: paid ? "completed" : i % 5 === 2 ? "failed" : i % 7 === 4 ? "expired" : "pending",
    description: i % 2 === 0 ? `Order #${1000 + i} "quoted" & <escaped> é` : null,
    metadata: i % 3 === 1 ? JSON.stringify({ order_id: `o-${i}`, note: "line\nbreak" }) : null,
    sourceType: i % 6 === 5 ? "checkout_session" : "direct",
    customerId: i % 4 === 0 ? CUSTOMER : null,
    payerAddress: paid ? payer : null,
    txHash: paid ? i.toString(16).padStart(64, "a") : null,
    confirmedAt: paid ? new Date(createdAt.getTime() + 90_000) : null,
    expiresAt: i % 8 === 7 ? null : new Date(createdAt.getTime() + 3_600_000),
    pricingCurrency: i % 5 === 3 ? "EUR" : null,
    pricingAmount: i % 5 === 3 ? "19.99" : null,
    amountReceived: paid ? BigInt(i) * 12_345_678n + 1n + (i === 9 ? 5_000_000n : 0n) : 0n,
    amountRefunded: i === 6 ? 10_000_000n : 0n,
    late: i === 12,
    settlementAddress: wallet,
    networkPassphrase: PASSPHRASE[environment],
    memoId: (9_000_000_000_000_000_000n + BigInt(i) * 7_919n).toString(),
    failureReason: i % 5 === 2 && !paid ? "underpaid" : null,
    manualCompletionReason: i === 15 ? "paid in cash at the counter" : null,
    createdAt,
    updatedAt: createdAt,
  };
}

const PAYMENTS = 25;
const ids = Array.from({ length: PAYMENTS }, (_, i) => fixedPayment(i, "").id);

const FULL_PAYMENT = `query ($id: ID!) { payment(id: $id) {
  id amount settlementAsset { assetCode issuerAddress } allowedAssets { assetCode issuerAddress } paidAsset { assetCode issuerAddress }
  status description metadata checkoutUrl sourceType customerId customer { id email name } payerAddress txHash confirmedAt expiresAt
  createdAt amountReceived amountRefunded late failureReason manualCompletionReason pricingCurrency pricingAmount
  paymentInstructions { destination muxedDestination memoType memo networkPassphrase sep7Uri } } }`;
const PAGE = `query ($after: String, $status: PaymentStatus) { payments(first: 7, after: $after, status: $status) {
  edges { cursor node { id amount status createdAt paymentInstructions { muxedDestination } } } pageInfo { hasNextPage endCursor } } }`;

interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

let t: TestApp;
let merchant: Merchant;
const answers: Record<string, Answer> = {};

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
  await t.deps.db.customer.create({
    data: {
      id: CUSTOMER, organizationId: merchant.organizationId, environment: "production", email: "ada@example.test", name: "Ada",
      createdAt: new Date(START), updatedAt: new Date(START),
    },
  });
  await t.deps.db.payment.createMany({ data: ids.map((_, i) => fixedPayment(i, merchant.organizationId)) });
});
afterAll(async () => {
  if (recording) writeFileSync(FIXTURE, `${JSON.stringify(answers, null, 1)}\n`);
  await t?.close();
});

const recorded: Record<string, Answer> = recording ? {} : JSON.parse(readFileSync(FIXTURE, "utf8"));

async function compare(name: string, response: Response) {
  const answer = { status: response.status, contentType: response.headers.get("content-type"), body: await response.text() };
  answers[name] = answer;
  if (!recording) expect(answer, name).toEqual(recorded[name]);
}

const rest = (path: string, key = merchant.liveKey) => fetch(`${t.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
const graphql = (query: string, variables: Record<string, unknown>, key = merchant.liveKey) =>
  fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });

describe("REST reads answer the recorded bytes", () => {
  it("GET /payments/{id} of every payment of the set, each with the key of its environment", async () => {
    for (const [i, id] of ids.entries()) await compare(`GET /payments/${id}`, await rest(`/payments/${id}`, i >= 23 ? merchant.sandboxKey : merchant.liveKey));
  });

  it("list pages: the first, short ones, both cursors, each filter, the other environment", async () => {
    for (const query of [
      "",
      "?limit=20",
      "?limit=5",
      `?limit=5&starting_after=${ids[11]}`,
      `?limit=5&ending_before=${ids[3]}`,
      "?status=completed",
      `?customer_id=${CUSTOMER}&limit=3`,
      "?limit=100",
    ]) {
      await compare(`GET /payments${query}`, await rest(`/payments${query}`));
    }
    await compare("GET /payments (sandbox)", await rest("/payments", merchant.sandboxKey));
  });

  it("what is not found, not allowed or not valid", async () => {
    await compare("GET /payments/{missing}", await rest("/payments/pay_0ReadAnswersMissing0"));
    await compare("GET /payments/{other environment}", await rest(`/payments/${ids[0]}`, merchant.sandboxKey));
    await compare("GET /payments/{id} with a wrong key", await rest(`/payments/${ids[0]}`, "sk_live_notakey"));
    await compare("GET /payments?limit=0", await rest("/payments?limit=0"));
  });
});

describe("GraphQL reads answer the recorded bytes", () => {
  it("payment(id): the benches' query and every field, for every payment of the set", async () => {
    for (const [i, id] of ids.entries()) {
      const key = i >= 23 ? merchant.sandboxKey : merchant.liveKey;
      await compare(`graphql payment ${id}`, await graphql(GRAPHQL_PAYMENT_QUERY, { id }, key));
      await compare(`graphql payment (every field) ${id}`, await graphql(FULL_PAYMENT, { id }, key));
    }
    await compare("graphql payment (missing)", await graphql(GRAPHQL_PAYMENT_QUERY, { id: "pay_0ReadAnswersMissing0" }));
  });

  it("payments: pages after pages, and a filter", async () => {
    let after: string | null = null;
    for (let page = 0; page < 4; page++) {
      const response = await graphql(PAGE, { after });
      await compare(`graphql payments page ${page}`, response.clone());
      after = ((await response.json()) as { data: { payments: { pageInfo: { endCursor: string } } } }).data.payments.pageInfo.endCursor;
    }
    await compare("graphql payments completed", await graphql(PAGE, { status: "completed" }));
  });
});
