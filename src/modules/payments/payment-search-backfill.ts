// Gives search terms (payment-search.ts) to the payments made before they existed (migration 0021),
// which were found only by their whole id or hash. Migration 0022 schedules the walk in a database
// that had payments; this worker does it in the background, a batch at a time in primary-key order
// (a seek per batch, whatever the size of the table), each batch in one transaction that writes the
// batch's terms and the last id done (the watermark). So:
//   - a restart resumes after the last batch committed, and a batch cut short wrote nothing;
//   - N processes on PostgreSQL take turns: each batch starts by updating the walk's row, which
//     holds its lock to the commit, so the next process reads the watermark that batch left, and no
//     batch is done twice (terms already there are skipped anyway);
//   - payments made meanwhile write their own terms: the walk ends at the first batch that comes
//     back short, having passed every payment that existed when it started.
// Once the walk is over (finishedAt), each run is a look at a flag in memory.
import type { Payment } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { preparedQuery } from "../../db/typed-sql.ts";
import type { Logger } from "../../shared/logger.ts";
import { type PeriodicTask, periodicTask } from "../../shared/periodic-task.ts";
import { insertSearchTermsStatement } from "./payment-search.ts";

export const SEARCH_TERMS_BACKFILL = "payment-search-terms";

/** Payments per transaction: tens of terms each, a few tens of milliseconds of writes per batch. */
const BATCH = 200;

/** Takes the walk's row (its lock, on PostgreSQL, until the batch commits) and reads where it stands. */
const claim = preparedQuery((q, p: { name: string }) =>
  q.updateTable("Backfill").set((eb) => ({ name: eb.ref("name") })).where("name", "=", p.name).where("finishedAt", "is", null).returningAll(),
);

const paymentsAfter = preparedQuery((q, p: { afterId: string; limit: number }) =>
  q.selectFrom("Payment").selectAll().where("id", ">", p.afterId).orderBy("id").limit(p.limit),
);

const advance = preparedQuery((q, p: { name: string; afterId: string | null; finishedAt: Date | null }) =>
  q.updateTable("Backfill").set({ afterId: p.afterId, finishedAt: p.finishedAt }).where("name", "=", p.name).where("finishedAt", "is", null),
);

export interface SearchTermsBackfill extends PeriodicTask {
  /** One batch; whether the walk goes on (false: over, or none scheduled). */
  runBatch(): Promise<boolean>;
  /** Batches until the walk is over (or the worker stops); how many batches ran. */
  runOnce(): Promise<number>;
}

export function createSearchTermsBackfill(
  deps: Deps & { logger: Logger },
  options: { intervalMs?: number; /** payments per transaction */ batchSize?: number } = {},
): SearchTermsBackfill {
  const batchSize = options.batchSize ?? BATCH;
  let over = false;

  async function runBatch(): Promise<boolean> {
    if (over) return false;
    const typed = typedSql(deps.db);
    const name = SEARCH_TERMS_BACKFILL;
    const payments: Payment[] = [];
    await typed.direct.batch([
      claim.statement(typed, { name }),
      ([claimed]) => {
        const walk = claim.rowsOf(typed, claimed!.rows)[0];
        // "" is below every id: the first batch starts at the first payment
        return paymentsAfter.statement(typed, { afterId: walk?.afterId ?? "", limit: walk ? batchSize : 0 });
      },
      ([claimed, read]) => {
        payments.push(...paymentsAfter.rowsOf(typed, read!.rows));
        const walk = claim.rowsOf(typed, claimed!.rows)[0];
        if (!walk) over = true;
        return insertSearchTermsStatement(deps.db, payments);
      },
      ([claimed]) => {
        const walk = claim.rowsOf(typed, claimed!.rows)[0];
        const done = payments.length < batchSize;
        return advance.statement(typed, {
          name,
          afterId: payments.at(-1)?.id ?? walk?.afterId ?? null,
          finishedAt: walk && done ? deps.clock.now() : null,
        });
      },
    ]);
    if (payments.length < batchSize) over = true;
    return !over;
  }

  async function runOnce(): Promise<number> {
    let batches = 0;
    while (await runBatch()) batches++;
    return batches;
  }

  const task = periodicTask(runBatch, {
    intervalMs: options.intervalMs ?? 60_000,
    moreWaiting: (more) => more,
    onError: (error) => deps.logger.error("search terms backfill failed", { error }),
  });
  return { runBatch, runOnce, ...task };
}
