// Live screens for changes that write no outbox event (a delivery attempt recorded, a mail sent): the
// writer announces each changed row after its commit to this process's open screens and, on
// PostgreSQL, NOTIFYs the other processes at the commit (a batch step), so a change recorded by a
// worker on one host reaches a dashboard open on another. A screen's stream (watchChanges) hears
// both, keeps the rows of its caller's scope that it wants, reads each again as it is now and pushes
// it; it ends with the credential's revocation, as the other dashboard streams do (changes.live.ts).
import { randomUUID } from "node:crypto";
import type { Deps } from "../../context.ts";
import { postgresSchema } from "../../db/client.ts";
import type { Statement } from "../../db/direct-sql.ts";
import type { Logger } from "../../shared/logger.ts";
import { type PostgresListener, listenForNotifications } from "./events.feed.ts";

/** A changed row: its id, its scope, and whatever else screens filter on (all strings). */
export type ChangedRow<K extends string> = { id: string; organizationId: string; environment: string } & Record<K, string>;

export interface ChangeChannel<K extends string> {
  /** Tells this process's open screens that these rows changed (call after the commit). */
  announce(db: object, changed: ChangedRow<K>[]): void;
  /** Batch steps that NOTIFY the other processes of these changes at the commit of their batch (none on SQLite: one process). */
  notices(deps: Pick<Deps, "db" | "config">, changed: ChangedRow<K>[]): Statement[];
  /** Hears every change announced here or notified by another process; resolves once listening. Returns what stops it. */
  listen(deps: Deps & { logger: Logger }, listener: (changed: ChangedRow<K>[]) => void): Promise<() => void>;
}

/** Rows per notice: PostgreSQL caps a payload below 8,000 bytes. */
const PER_NOTICE = 60;
const SCOPE_FIELDS = ["id", "organizationId", "environment"] as const;

/** A database client's mark on its notices: its own changes were announced already, in process. */
const marks = new WeakMap<object, string>();
function markOf(db: object): string {
  const mark = marks.get(db) ?? randomUUID();
  marks.set(db, mark);
  return mark;
}

/** The channel `name` (a PostgreSQL identifier), whose rows also carry `extra` fields. */
export function changeChannel<K extends string = never>(name: string, extra: readonly K[] = []): ChangeChannel<K> {
  const fields = [...SCOPE_FIELDS, ...extra] as (keyof ChangedRow<K>)[];
  // Keyed by the database client: the workers and both GraphQL doors may carry different deps objects around the same client.
  const listeners = new WeakMap<object, Set<(changed: ChangedRow<K>[]) => void>>();
  /** On PostgreSQL, one LISTEN connection per database client while any screen listens. */
  const connections = new WeakMap<object, { open: number; listening: Promise<PostgresListener> }>();

  function announce(db: object, changed: ChangedRow<K>[]): void {
    if (changed.length === 0) return;
    for (const listener of listeners.get(db) ?? []) listener(changed);
  }

  function announceNotice(db: object, schema: string, payload: string): void {
    let notice: { schema?: unknown; from?: unknown; rows?: unknown };
    try {
      notice = JSON.parse(payload);
    } catch {
      return;
    }
    if (notice.schema !== schema || notice.from === markOf(db) || !Array.isArray(notice.rows)) return;
    announce(
      db,
      (notice.rows as unknown[][]).map((values) => Object.fromEntries(fields.map((field, i) => [field, String(values[i])])) as ChangedRow<K>),
    );
  }

  async function hearOtherProcesses(deps: Deps & { logger: Logger }): Promise<() => void> {
    if (deps.config.dialect !== "postgresql") return () => {};
    const schema = postgresSchema(deps.config.databaseUrl);
    let shared = connections.get(deps.db);
    if (!shared) {
      const listening = listenForNotifications(deps, name, { onPayload: (payload) => announceNotice(deps.db, schema, payload) });
      connections.set(deps.db, (shared = { open: 0, listening }));
      listening.catch(() => connections.get(deps.db) === shared && connections.delete(deps.db));
    }
    const mine = shared;
    mine.open++;
    const stop = () => {
      if (--mine.open > 0) return;
      if (connections.get(deps.db) === mine) connections.delete(deps.db);
      void mine.listening.then((listener) => listener.close());
    };
    try {
      await mine.listening;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  return {
    announce,
    notices(deps, changed) {
      if (deps.config.dialect !== "postgresql" || changed.length === 0) return [];
      const schema = postgresSchema(deps.config.databaseUrl);
      const steps: Statement[] = [];
      for (let from = 0; from < changed.length; from += PER_NOTICE) {
        const rows = changed.slice(from, from + PER_NOTICE).map((row) => fields.map((field) => row[field]));
        steps.push({ text: "SELECT pg_notify($1, $2)", params: [name, JSON.stringify({ schema, from: markOf(deps.db), rows })] });
      }
      return steps;
    },
    async listen(deps, listener) {
      let set = listeners.get(deps.db);
      if (!set) listeners.set(deps.db, (set = new Set()));
      set.add(listener);
      try {
        const stopHearing = await hearOtherProcesses(deps);
        return () => {
          set.delete(listener);
          stopHearing();
        };
      } catch (error) {
        set.delete(listener);
        throw error;
      }
    },
  };
}
