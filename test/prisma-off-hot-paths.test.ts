// The requests #14 measures (and every merchant's integration repeats) run on typed, prepared SQL, not
// on Prisma, whose client spends about 1 ms of CPU a query here (README, "How the hot paths are
// built"). Prisma's queries are counted at its driver adapter, for both dialects.
import { expect, it } from "vitest";
import { GRAPHQL_PAYMENT_QUERY } from "../bench/lib/service.ts";
import { watchPrismaQueries } from "./support/prisma-queries.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const prisma = watchPrismaQueries();
const { t, merchant } = await startTestAppWithMerchant();
const key = merchant.liveKey;

async function prismaQueriesOf(request: () => Promise<{ status: number }>, status: number): Promise<number> {
  await request(); // the first of each kind may prepare statements
  prisma.count = 0;
  expect((await request()).status).toBe(status);
  return prisma.count;
}

it("creates, reads and lists payments over REST and reads one over GraphQL without a Prisma query", async () => {
  const created = await t.api("POST", "/payments", { key, body: { amount: "12.5" } });
  const id: string = created.body.id;
  const body = { amount: "12.5", description: "Order 1", metadata: { order_id: "1" } };
  expect(await prismaQueriesOf(() => t.api("POST", "/payments", { key, body }), 201)).toBe(0);
  expect(await prismaQueriesOf(() => t.api("GET", `/payments/${id}`, { key }), 200)).toBe(0);
  expect(await prismaQueriesOf(() => t.api("GET", "/payments?limit=20", { key }), 200)).toBe(0);
  const graphql = () => t.graphql(GRAPHQL_PAYMENT_QUERY, { id }, key);
  expect(await prismaQueriesOf(graphql, 200)).toBe(0);
  expect((await graphql()).body.data.payment.id).toBe(id);
});

it("counts the queries Prisma does run: a payment's customer is a relation Pothos loads through Prisma", async () => {
  const created = await t.api("POST", "/payments", { key, body: { amount: "1" } });
  const withCustomer = () => t.graphql("query ($id: ID!) { payment(id: $id) { id customer { id } } }", { id: created.body.id }, key);
  expect(await prismaQueriesOf(withCustomer, 200)).toBeGreaterThan(0);
});
