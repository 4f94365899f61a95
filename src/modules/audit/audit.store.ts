// Every read and write of the AuditEntry table. An entry is inserted in the batch of the action it
// records: an action that rolls back leaves no entry, and no action commits without one.
import type { AuditEntry } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { everyColumn, preparedQuery } from "../../db/typed-sql.ts";
import { type PageRequest, listOf } from "../../db/list-page.ts";

const insert = preparedQuery((q, p: AuditEntry) => q.insertInto("AuditEntry").values(everyColumn("AuditEntry", p)));

/** The insert of an entry, for the batch of the action it records. */
export const newAuditEntryStatement = (db: Db, row: AuditEntry): Statement => insert.statement(typedSql(db), row);

const entriesOfResource = preparedQuery((q, p: { organizationId: string; resourceId: string }) =>
  q.selectFrom("AuditEntry").selectAll().where("resourceId", "=", p.resourceId).where("organizationId", "=", p.organizationId).orderBy("createdAt").orderBy("id"),
);

/** What was done to one resource of the organization, oldest first (a refund's timeline). */
export const auditEntriesOf = (db: Db, organizationId: string, resourceId: string): Promise<AuditEntry[]> =>
  entriesOfResource.all(typedSql(db), { organizationId, resourceId });

/** The organization's entries, of both environments (role changes belong to neither), newest first. */
const entriesOfOrganization = listOf<"AuditEntry", { organizationId: string }>({
  table: "AuditEntry",
  where: (eb, f) => eb.and({ organizationId: f.organizationId }),
});

export const listAuditEntries = (db: Db, organizationId: string, page: PageRequest) => entriesOfOrganization(typedSql(db), { organizationId }, page);
