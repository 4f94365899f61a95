// Every read and write of the MailMessage table (the mail outbox). Writers put a message's insert in
// the batch of the change that causes it; the mail worker claims due messages with a lease and
// records each attempt.
import type { MailMessage } from "../../generated/sqlite/client.ts";
import { type Db, directSql, typedSql } from "../../db/client.ts";
import { type Statement, rowConverter } from "../../db/direct-sql.ts";
import { everyColumn, insertJsonRows, preparedQuery } from "../../db/typed-sql.ts";
import { type InScope, type PageRequest, listOf } from "../../db/list-page.ts";
import { type Scope, type ServiceContext, inScope } from "../../context.ts";

const toMailMessage = rowConverter<MailMessage>("MailMessage");

const insert = preparedQuery((q, p: MailMessage) => q.insertInto("MailMessage").values(everyColumn("MailMessage", p)));

/** The insert of a new message, for the batch of the change that causes it. */
export const newMailStatement = (db: Db, row: MailMessage): Statement => insert.statement(typedSql(db), row);

/** Columns of a multi-row insert, with their PostgreSQL types (SQLite takes the JSON values as they are). */
const MAIL_COLUMNS = {
  id: "text",
  organizationId: "text",
  environment: "text",
  kind: "text",
  resourceId: "text",
  recipient: "text",
  subject: "text",
  textBody: "text",
  htmlBody: "text",
  senderName: "text",
  status: "text",
  attemptCount: "integer",
  nextAttemptAt: "timestamp",
  leaseUntil: "timestamp",
  lastError: "text",
  sentAt: "timestamp",
  createdAt: "timestamp",
  updatedAt: "timestamp",
} satisfies Record<keyof MailMessage, string>;
const insertRows = insertJsonRows("MailMessage", MAIL_COLUMNS);

/** The insert of any number of new messages as ONE statement of a caller's batch. */
export function insertMailRowsStatement(db: Db, rows: MailMessage[]): Statement {
  const { direct } = typedSql(db);
  const date = (value: Date | null) => value && direct.storedDate(value);
  const stored = rows.map((row) => ({
    ...row,
    nextAttemptAt: date(row.nextAttemptAt),
    leaseUntil: date(row.leaseUntil),
    sentAt: date(row.sentAt),
    createdAt: date(row.createdAt),
    updatedAt: date(row.updatedAt),
  }));
  return insertRows.statement(typedSql(db), { rows: JSON.stringify(stored) });
}

/**
 * Leases up to `limit` due messages until `leaseUntil`. Due: pending, its attempt time reached, and
 * nobody's lease running (a lapsed lease is a worker that died). One conditional UPDATE: SQLite runs
 * it atomically, PostgreSQL skips rows another worker is claiming.
 */
export async function claimDueMail(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<MailMessage[]> {
  const sql = directSql(db);
  const [result] = await sql.batch([
    {
      text: `UPDATE "MailMessage" SET "leaseUntil" = $1
        WHERE "id" IN (
          SELECT "id" FROM "MailMessage"
          WHERE "status" = 'pending' AND "nextAttemptAt" <= $2 AND ("leaseUntil" IS NULL OR "leaseUntil" <= $2)
          ORDER BY "nextAttemptAt" LIMIT $3${sql.dialect === "postgresql" ? " FOR UPDATE SKIP LOCKED" : ""})
        RETURNING *`,
      params: [leaseUntil, now, limit],
    },
  ]);
  return result!.rows.map((row) => toMailMessage(row)!);
}

const pendingCount = preparedQuery((q) => q.selectFrom("MailMessage").select((eb) => eb.fn.countAll().as("count")).where("status", "=", "pending"));

/** How many messages wait to be sent (the mail backlog, for /metrics): the ("status", "nextAttemptAt") index answers it. */
export const countPendingMail = async (db: Db): Promise<number> => Number((await pendingCount.first(typedSql(db), {}))?.count ?? 0);

export interface MailAttempt {
  id: string;
  /** the attemptCount the message had when claimed: only that claim's attempt is recorded */
  claimedAttemptCount: number;
  status: "pending" | "sent" | "logged" | "failed";
  nextAttemptAt: Date | null;
  lastError: string | null;
  sentAt: Date | null;
  now: Date;
}

/**
 * Records an attempt and releases the lease. False when another worker, having taken over a lapsed
 * lease, recorded this attempt first: this result is then dropped.
 */
export async function recordMailAttempt(db: Db, attempt: MailAttempt, alongside: Statement[] = []): Promise<boolean> {
  const typed = typedSql(db);
  const [result] = await typed.direct.batch([
    typed.statement(
      typed.q
        .updateTable("MailMessage")
        .set({
          status: attempt.status,
          attemptCount: attempt.claimedAttemptCount + 1,
          nextAttemptAt: attempt.nextAttemptAt,
          lastError: attempt.lastError,
          sentAt: attempt.sentAt,
          leaseUntil: null,
          updatedAt: attempt.now,
        })
        .where("id", "=", attempt.id)
        .where("attemptCount", "=", attempt.claimedAttemptCount),
    ),
    ...alongside,
  ]);
  return result!.changes > 0;
}

/** The scope's message `id` (of `kind` only, if given), or null: what a live mail list reads again. */
export const findMailMessage = (db: Db, scope: Pick<Scope, "organizationId" | "environment">, id: string, kind: string | null): Promise<MailMessage | null> =>
  db.mailMessage.findFirst({ where: { id, ...inScope(scope), ...(kind !== null && { kind }) } });

export interface MailFilters {
  /** the resource the mail is about (an invoice's mails) */
  resourceId?: string | null;
  /** one kind only (what an API key may list: invoices' mail, which names no teammate) */
  kind?: string | null;
}

/** The messages a list shows: the caller's, about the resource asked for, newest first. */
const mailMatching = listOf<"MailMessage", InScope<MailFilters>>({
  table: "MailMessage",
  where: (eb, f) => eb.and({ ...inScope(f), resourceId: f.resourceId, kind: f.kind }),
});

export const listMailMessages = (ctx: ServiceContext, filters: MailFilters, page: PageRequest) =>
  mailMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);
