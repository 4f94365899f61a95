// The requests #14 measures (and every merchant's integration repeats) run on typed, prepared SQL, not
// on Prisma, whose client spends about 1 ms of CPU a query here (README, "How the hot paths are
// built"). Prisma's queries are counted at its driver adapter, for both dialects.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, expect, it, vi } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

interface Queryable {
  queryRaw(query: unknown): Promise<unknown>;
  executeRaw(query: unknown): Promise<unknown>;
}
interface Adapter extends Queryable {
  startTransaction(...args: unknown[]): Promise<Queryable>;
}

let prismaQueries = 0;
function counting<T extends Queryable>(queryable: T): T {
  for (const method of ["queryRaw", "executeRaw"] as const) {
    const run = queryable[method].bind(queryable);
    queryable[method] = (query: unknown) => {
      prismaQueries++;
      return run(query);
    };
  }
  return queryable;
}
// Test files share a worker's modules (isolate: false), so the spies are removed after this file.
for (const factory of [PrismaBetterSQLite3.prototype, PrismaPg.prototype] as { connect(): Promise<Adapter> }[]) {
  const connect = factory.connect;
  vi.spyOn(factory, "connect").mockImplementation(async function (this: unknown) {
    const adapter = counting(await connect.call(this));
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (...args) => counting(await startTransaction(...args));
    return adapter;
  });
}
afterAll(() => vi.restoreAllMocks());

const { t, merchant } = await startTestAppWithMerchant();
const key = merchant.liveKey;

async function prismaQueriesOf(request: () => Promise<{ status: number }>, status: number): Promise<number> {
  await request(); // the first of each kind may prepare statements
  prismaQueries = 0;
  expect((await request()).status).toBe(status);
  return prismaQueries;
}

it("creates, reads and lists payments over REST and reads one over GraphQL without a Prisma query", async () => {
  const created = await t.api("POST", "/payments", { key, body: { amount: "12.5" } });
  const id: string = created.body.id;
  const body = { amount: "12.5", description: "Order 1", metadata: { order_id: "1" } };
  expect(await prismaQueriesOf(() => t.api("POST", "/payments", { key, body }), 201)).toBe(0);
  expect(await prismaQueriesOf(() => t.api("GET", `/payments/${id}`, { key }), 200)).toBe(0);
  expect(await prismaQueriesOf(() => t.api("GET", "/payments?limit=20", { key }), 200)).toBe(0);
  const graphql = () => t.graphql("query ($id: ID!) { payment(id: $id) { id amount status description metadata checkoutUrl createdAt expiresAt } }", { id }, key);
  expect(await prismaQueriesOf(graphql, 200)).toBe(0);
  expect((await graphql()).body.data.payment.id).toBe(id);
});

it("counts the queries Prisma does run: a payment's customer is a relation Pothos loads through Prisma", async () => {
  const created = await t.api("POST", "/payments", { key, body: { amount: "1" } });
  const withCustomer = () => t.graphql("query ($id: ID!) { payment(id: $id) { id customer { id } } }", { id: created.body.id }, key);
  expect(await prismaQueriesOf(withCustomer, 200)).toBeGreaterThan(0);
});
