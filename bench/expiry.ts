// `npm run bench:expiry`: #16's expiry figure. 10,000 payments due in the same second, all expired by
// the sweeper with their payment.expired events, on SQLite and on PostgreSQL (BENCH_POSTGRES_URL's
// database, default the local `test`), timed; against, in the same run and database, the sweeper at
// one payment per transaction (batch size 1, what the sweeper did before #16) over 1,000 payments.
// Aim: 10,000 within 5 s (>= 2,000/s). BENCH_DIALECTS=sqlite or postgresql picks one;
// BENCH_DUE (default 10,000) and BENCH_BASELINE_DUE (default 1,000) set the counts.
import { migrateDatabase } from "../src/db/migrate.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase, postgresSchema } from "../src/db/client.ts";
import type { Payment } from "../src/generated/sqlite/client.ts";
import { createOrganization, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { createExpirySweeper } from "../src/modules/payments/expiry-sweeper.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { timeOrderedIds } from "../src/shared/ids.ts";
import { createLogger } from "../src/shared/logger.ts";
import { Keypair } from "@stellar/stellar-sdk";
import { type Dialect, prepareDatabase } from "./lib/sse-fan-out.ts";

const dialects = (process.env.BENCH_DIALECTS ?? "sqlite,postgresql").split(",") as Dialect[];
const due = Number(process.env.BENCH_DUE ?? 10_000);
const baselineDue = Number(process.env.BENCH_BASELINE_DUE ?? 1_000);
const BATCH = 500;

async function benchDialect(dialect: Dialect) {
  const target = await prepareDatabase(dialect);
  const url = dialect === "postgresql" && process.env.BENCH_POSTGRES_URL ? target.url.replace(/^[^?]*/, process.env.BENCH_POSTGRES_URL) : target.url;
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: "warn", PUBLIC_URL: "http://pay.example.test" });
  await migrateDatabase(config.databaseUrl);
  const database = openDatabase(config.databaseUrl);
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const deps = { db: database.db, config, clock, ids: timeOrderedIds, logger: createLogger("warn") };
  try {
    const org = await createOrganization(deps, { name: "Bench" });
    await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: Keypair.random().publicKey() });
    const ctx = { ...deps, scope: { organizationId: org.organization_id, environment: "sandbox" as const, principal: { kind: "key" as const, id: "bench", role: "admin" as const } } };

    /** `count` pending payments, copies of one the service made, all due in the same second; their id prefix. */
    async function seed(count: number, label: string): Promise<string> {
      const template: Payment = await createPayment(ctx, { amount: 10_000_000n, expires_in_minutes: 5 });
      const rows = Array.from({ length: count }, (_, i) => ({
        ...template,
        id: `${template.id}_${label}${i}`,
        memoId: String(BigInt(template.memoId) - BigInt(i + 1)),
      }));
      for (let i = 0; i < rows.length; i += 500) await database.db.payment.createMany({ data: rows.slice(i, i + 500) });
      await database.db.payment.update({ where: { id: template.id }, data: { status: "completed" } });
      return `${template.id}_${label}`;
    }

    async function expireAll(count: number, batchSize: number, label: string) {
      const prefix = await seed(count, label);
      offsetMs += 6 * 60_000; // past their expiry
      const sweeper = createExpirySweeper(deps, { batchSize });
      const started = performance.now();
      const moved = await sweeper.runOnce();
      const ms = performance.now() - started;
      const events = await database.db.event.count({ where: { resourceId: { startsWith: prefix }, type: "payment.expired" } });
      if (moved !== count || events !== count) throw new Error(`${label}: expired ${moved} with ${events} events, expected ${count}`);
      return { ms, rate: count / (ms / 1000) };
    }

    const baseline = await expireAll(baselineDue, 1, "one");
    const batched = await expireAll(due, BATCH, "set");
    const met = batched.ms <= 5000 ? "met" : "NOT met";
    console.log(
      `${dialect.padEnd(10)} ${due} due: ${(batched.ms / 1000).toFixed(2)} s, ${Math.round(batched.rate)}/s (batch ${BATCH}) | ` +
        `one per transaction: ${Math.round(baseline.rate)}/s over ${baselineDue} | x${(batched.rate / baseline.rate).toFixed(1)} | aim 5 s: ${met}`,
    );
    if (dialect === "postgresql") {
      // Disk per row, indexes included: what retention saves per payment (each payment here has two events).
      const schema = postgresSchema(config.databaseUrl);
      const per = async (table: string) => {
        const [row] = await database.db.$queryRawUnsafe<{ bytes: bigint; count: bigint }[]>(
          `SELECT pg_total_relation_size('"${schema}"."${table}"') AS bytes, (SELECT count(*) FROM "${schema}"."${table}") AS count`,
        );
        return Math.round(Number(row!.bytes) / Number(row!.count));
      };
      console.log(`postgresql bytes per row, indexes included: Payment ${await per("Payment")}, Event ${await per("Event")}`);
    }
  } finally {
    await database.close();
    await target.drop();
  }
}

for (const dialect of dialects) await benchDialect(dialect);
