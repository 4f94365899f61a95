// Watches the queries Prisma sends through its driver adapter (either dialect) for one test file:
// how many in all, and how many at once on one transaction's connection. Call it at the top of the
// file, before the app's first Prisma query connects the client; the watch ends with the file (test
// files share a worker's modules, isolate: false).
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, vi } from "vitest";

interface Queryable {
  queryRaw(query: unknown): Promise<unknown>;
  executeRaw(query: unknown): Promise<unknown>;
}
interface Adapter extends Queryable {
  startTransaction(...args: unknown[]): Promise<Queryable>;
}

export interface PrismaQueries {
  /** queries sent since the count was last set to 0 */
  count: number;
  /** the most queries one transaction had in flight at the same time */
  mostAtOnceInATransaction: number;
}

export function watchPrismaQueries(): PrismaQueries {
  const seen: PrismaQueries = { count: 0, mostAtOnceInATransaction: 0 };
  const counting = <T extends Queryable>(queryable: T, inTransaction: boolean): T => {
    let inFlight = 0;
    for (const method of ["queryRaw", "executeRaw"] as const) {
      const run = queryable[method].bind(queryable);
      queryable[method] = async (query: unknown) => {
        seen.count++;
        inFlight++;
        if (inTransaction) seen.mostAtOnceInATransaction = Math.max(seen.mostAtOnceInATransaction, inFlight);
        try {
          return await run(query);
        } finally {
          inFlight--;
        }
      };
    }
    return queryable;
  };
  const spies = ([PrismaBetterSQLite3.prototype, PrismaPg.prototype] as { connect(): Promise<Adapter> }[]).map((factory) => {
    const connect = factory.connect;
    return vi.spyOn(factory, "connect").mockImplementation(async function (this: unknown) {
      const adapter = counting(await connect.call(this), false);
      const startTransaction = adapter.startTransaction.bind(adapter);
      adapter.startTransaction = async (...args) => counting(await startTransaction(...args), true);
      return adapter;
    });
  });
  afterAll(() => spies.forEach((spy) => spy.mockRestore()));
  return seen;
}
