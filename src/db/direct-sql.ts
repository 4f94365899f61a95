// Prepared statements straight on the database driver, beside Prisma, for the service's hot paths.
// Why: Prisma 6.19's client engine spends about 1 ms of CPU per query on this machine (every query
// is compiled in WebAssembly, with no plan cache; its SQLite adapter prepares each statement anew),
// against ~0.02 ms for a prepared statement; the API's request rates depend on it. Everything else
// goes through Prisma. Rows in and out are converted with Prisma's own datamodel, so callers see
// exactly the model types Prisma returns (test/direct-sql.test.ts compares the two).
//
// SQL is written once with PostgreSQL's `$1` placeholders; on SQLite they become `?`s in order.
// Writes are batches: statements run in order inside one transaction. On SQLite a batch runs
// synchronously on a connection of its own that never waits for the write lock: if Prisma (or
// another process) holds it, the batch is retried a moment later instead of blocking the event loop
// that Prisma's transaction needs to finish.
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { Dialect } from "../config.ts";
import { getDatamodel } from "../generated/pothos-types.ts";

export type Row = Record<string, unknown>;

export interface Statement {
  text: string;
  params: unknown[];
  /** the batch fails with `error` (and changes nothing) unless the statement changed exactly this many rows */
  expect?: { changes: number; error: () => Error };
  /** an INSERT with no RETURNING (typed-sql.ts marks them): its batch may share a statement with others */
  insertsOnly?: true;
}

/** A statement, or one made from the results of the statements before it in the batch. */
export type BatchStep = Statement | ((before: StatementResult[]) => Statement);

export interface StatementResult {
  changes: number;
  /** rows of a statement with RETURNING */
  rows: Row[];
}

export interface DirectSql {
  dialect: Dialect;
  /** rows of a read, as the driver gives them (see rowConverter) */
  all(text: string, params: unknown[]): Promise<Row[]>;
  /** the statements in order, in one transaction; all or nothing */
  batch(steps: BatchStep[]): Promise<StatementResult[]>;
  close(): Promise<void>;
  /**
   * A list as ONE parameter (typed-sql's inListParam), so a statement keeps one text whatever its
   * length and stays prepared: PostgreSQL takes an array, SQLite JSON text.
   */
  listParam(values: (string | number)[]): unknown;
  /** a date as the dialect stores it, for rows passed as JSON */
  storedDate(date: Date): string;
}

const conversionsByType: Record<string, (value: unknown) => unknown> = {
  DateTime: (v) => new Date(v as string | Date),
  BigInt: (v) => BigInt(v as string | bigint),
  Boolean: (v) => v === true || v === 1 || v === 1n,
  Int: (v) => Number(v),
};

/**
 * Model name -> converter from a driver's row to the types Prisma returns. The converter is
 * generated, one statement per converted field (a list page converts ~20 rows: a loop over the
 * fields' closures cost it half as much again).
 */
export function rowConverter<T>(model: string): (row: Row | undefined) => T | null {
  const statements: string[] = [];
  for (const field of getDatamodel().datamodel.models[model as "Payment"]!.fields) {
    if (field.kind !== "scalar" || !(field.type in conversionsByType)) continue;
    const name = JSON.stringify(field.name);
    statements.push(`if (row[${name}] != null) row[${name}] = convert.${field.type}(row[${name}]);`);
  }
  const convert = new Function("convert", `return (row) => { if (!row) return null; ${statements.join(" ")} return row; };`);
  return convert(conversionsByType) as (row: Row | undefined) => T | null;
}

/** Dates as Prisma stores them: its SQLite adapter writes ISO text with `+00:00`. */
const sqliteDate = (date: Date) => date.toISOString().replace("Z", "+00:00");
/** Prisma's TIMESTAMP(3) columns hold UTC without a zone: written and read as UTC, never local time. */
const postgresDate = (date: Date) => date.toISOString();

/** The dialect's parts of listParam and storedDate (see DirectSql). */
function bulkParts(dialect: Dialect) {
  const pg = dialect === "postgresql";
  return {
    listParam: (values: (string | number)[]) => (pg ? values : JSON.stringify(values)),
    storedDate: pg ? postgresDate : sqliteDate,
  };
}

/** What SQLite stores, matching Prisma's adapter: dates as above, booleans as 0/1. */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return sqliteDate(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value === undefined ? null : value;
}

function postgresValue(value: unknown): unknown {
  if (value instanceof Date) return postgresDate(value);
  if (typeof value === "bigint") return value.toString();
  return value === undefined ? null : value;
}

/**
 * The row object of a statement's values, made by a function written for its columns: an object
 * literal of fixed shape is built several times faster than one filled key by key (a page of 20
 * payments: ~45 µs less here).
 */
function rowBuilder(columns: string[]): (values: unknown[]) => Row {
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: v[${i}]`);
  return new Function("v", `return { ${fields.join(", ")} };`) as (values: unknown[]) => Row;
}

interface PendingBatch {
  steps: BatchStep[];
  since: number;
  resolve(results: StatementResult[]): void;
  reject(error: unknown): void;
  outcome?: { results: StatementResult[] } | { error: unknown };
}

// Another writer usually holds the lock for a millisecond or so (another worker's group commit), so
// a busy database is retried at the next turn of the event loop, which serves requests in between:
// waiting 2 ms each time instead cost a fifth of the create rate with two workers. A lock held for
// longer (the CLI, a Prisma transaction) is retried every 2 ms once it has been busy for 5 ms.
const SQLITE_BUSY_SPIN_MS = 5;
const SQLITE_BUSY_RETRY_MS = 2;
const SQLITE_BUSY_GIVE_UP_MS = 10_000;

/**
 * Every SQLite connection that writes commits with `synchronous = FULL`: in WAL mode that syncs the
 * WAL at each commit, so a power cut or an OS crash loses no write that was acknowledged. SQLite's
 * own default is FULL, but better-sqlite3 is built with NORMAL for WAL (synced only at checkpoints:
 * safe from a process crash, not from a power cut).
 */
export const DURABLE_SQLITE_SYNC = "FULL";

function sqliteDirectSql(path: string): DirectSql {
  // Reads on their own read-only connection: WAL lets it read beside any writer.
  const reader = new BetterSqlite3(path, { readonly: true, timeout: SQLITE_BUSY_GIVE_UP_MS });
  // The writer never waits inside SQLite (timeout 0): a busy database is retried from the event loop.
  const writer = new BetterSqlite3(path, { timeout: 0 });
  // Both keep SQLite's default page cache (2 MiB). A connection empties its cache whenever another
  // connection has committed since its last transaction (as WAL requires), at a cost that grows with
  // the cache's size: a 64 MiB cache made every read after a write cost more than the read itself.
  // (Ids begin with their time, so inserts need only the last pages of each index anyway.)
  // Each batch of a group runs in a savepoint, and SQLite copies every page a savepoint changes to a
  // statement journal, so the savepoint can roll back alone. That journal is a temporary file by
  // default, created, written a page at a time and deleted for every batch (kernel writes were 18 %
  // of the workers' CPU); in memory it is a copy, and link visits went ~7,000 -> ~8,500/s. The
  // journal only serves the savepoint's rollback: durability is the WAL's business.
  writer.pragma("temp_store = MEMORY");
  writer.pragma(`synchronous = ${DURABLE_SQLITE_SYNC}`);
  // better-sqlite3 binds `?`s by position only: each statement keeps which `$n` each `?` stands for
  // (none for text with `?`s already, as Kysely's SQLite compiler writes it: parameters in order).
  // Rows come as arrays and are made objects here: half the cost of better-sqlite3 making them.
  interface Prepared {
    statement: BetterSqlite3.Statement;
    order: number[] | null;
    /** a statement's row as an object */
    toRow: (values: unknown[]) => Row;
  }
  const prepared = [new Map<string, Prepared>(), new Map<string, Prepared>()] as const;
  const prepare = (db: BetterSqlite3.Database, text: string): Prepared => {
    const cache = prepared[db === reader ? 0 : 1];
    let entry = cache.get(text);
    if (!entry) {
      const statement = db.prepare(text.replace(/\$\d+/g, "?")).safeIntegers(true);
      const columns = statement.reader ? statement.columns().map((c) => c.name) : [];
      if (statement.reader) statement.raw(true);
      const numbered = [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]) - 1);
      entry = { statement, order: numbered.length ? numbered : null, toRow: rowBuilder(columns) };
      cache.set(text, entry);
    }
    return entry;
  };
  const rowsOf = ({ statement, toRow }: Prepared, params: unknown[]): Row[] => (statement.all(...params) as unknown[][]).map(toRow);
  const bind = (order: number[] | null, params: unknown[]) => (order ? order.map((i) => sqliteValue(params[i])) : params.map(sqliteValue));
  const runSteps = (steps: BatchStep[]) =>
    steps.reduce<StatementResult[]>((results, step) => {
      const s = typeof step === "function" ? step(results) : step;
      const entry = prepare(writer, s.text);
      const { statement } = entry;
      const params = bind(entry.order, s.params);
      const rows = statement.reader ? rowsOf(entry, params) : [];
      const changes = statement.reader ? rows.length : statement.run(...params).changes;
      if (s.expect && changes !== s.expect.changes) throw s.expect.error();
      results.push({ changes, rows });
      return results;
    }, []);
  // Group commit: the batches asked for in one turn of the event loop share one transaction, so one
  // durable commit (an fsync, which blocks the thread) serves them all. They run first side by side
  // (a batch's error rolls back the whole group); only when one fails do they run again, each in a
  // savepoint of its own, so that one rolls back alone. A savepoint costs each batch a copy of every
  // page it changes (SQLite's statement journal): a create's search terms touch a page each.
  const runTogether = writer.transaction((group: PendingBatch[]) => {
    for (const pending of group) pending.outcome = { results: runSteps(pending.steps) };
  });
  const inSavepoint = writer.transaction(runSteps);
  const runEachInSavepoint = writer.transaction((group: PendingBatch[]) => {
    for (const pending of group) {
      try {
        pending.outcome = { results: inSavepoint(pending.steps) };
      } catch (error) {
        pending.outcome = { error };
      }
    }
  });
  const isBusy = (error: unknown) => (error as { code?: string }).code === "SQLITE_BUSY";
  /** Runs the group, each batch's outcome on it; throws only when the database was busy. */
  const runGroup = (group: PendingBatch[]) => {
    try {
      // IMMEDIATE takes the write lock up front, so a busy database fails before anything ran.
      runTogether.immediate(group);
    } catch (error) {
      if (isBusy(error)) throw error;
      if (group.length === 1) group[0]!.outcome = { error };
      else runEachInSavepoint.immediate(group);
    }
  };
  let queue: PendingBatch[] = [];
  let flushScheduled = false;
  /** when the writes waiting now first found the database busy */
  let busySince: number | null = null;
  const scheduleFlush = (delayMs: number) => {
    if (flushScheduled) return;
    flushScheduled = true;
    if (delayMs === 0) setImmediate(flush);
    else setTimeout(flush, delayMs);
  };
  function flush() {
    flushScheduled = false;
    const group = queue;
    queue = [];
    if (group.length === 0) return;
    try {
      runGroup(group);
    } catch (error) {
      const busy = isBusy(error);
      const now = Date.now();
      const waiting = busy ? group.filter((p) => now - p.since <= SQLITE_BUSY_GIVE_UP_MS) : [];
      for (const pending of group) if (!waiting.includes(pending)) pending.reject(error);
      queue = [...waiting, ...queue];
      if (busy) busySince ??= now;
      const soon = busySince !== null && now - busySince < SQLITE_BUSY_SPIN_MS;
      if (queue.length) scheduleFlush(soon ? 0 : SQLITE_BUSY_RETRY_MS);
      return;
    }
    busySince = null;
    for (const { outcome, resolve, reject } of group) {
      if (outcome && "results" in outcome) resolve(outcome.results);
      else reject(outcome?.error);
    }
    if (queue.length) scheduleFlush(0);
  }
  return {
    dialect: "sqlite",
    ...bulkParts("sqlite"),
    all: async (text, params) => {
      const entry = prepare(reader, text);
      return rowsOf(entry, bind(entry.order, params));
    },
    batch: (steps) =>
      new Promise((resolve, reject) => {
        queue.push({ steps, since: Date.now(), resolve, reject });
        scheduleFlush(0);
      }),
    close: async () => {
      reader.close();
      writer.close();
    },
  };
}

/** Batches of inserts only, waiting to share one statement (PostgreSQL's group commit). */
interface InsertBatch {
  statements: Statement[];
  resolve(results: StatementResult[]): void;
  reject(error: unknown): void;
}

// Group commit on PostgreSQL: batches of inserts only (a create's payment, search terms and event)
// asked for while earlier ones are still on their way share one statement, so one round trip and one
// commit (a WAL flush) serve them all, as SQLite's writer shares one transaction. A round trip costs
// both processes a socket write and a wake-up, which on this machine's 2 cores was most of a create.
/** Grouped statements on their way at once: more batches wait for one of them and then go together. */
const POSTGRES_GROUPS_IN_FLIGHT = 2;
/** The most batches in one statement, and its parameters (PostgreSQL's protocol takes 65,535). */
const POSTGRES_GROUP_BATCHES = 64;
const POSTGRES_GROUP_PARAMS = 65_535;
/** Statements of several batches kept prepared (one per shape of group); past these, parsed each time. */
const POSTGRES_NAMED_GROUPS = 256;

/**
 * The inserts as ONE statement of data-modifying CTEs answering how many rows each wrote. It is
 * atomic, and foreign keys are checked at its end, so a row may reference one inserted before it.
 */
function combinedInserts(statements: Statement[]): { text: string; params: unknown[] } {
  let offset = 0;
  const parts = statements.map((statement, i) => {
    const text = statement.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    offset += statement.params.length;
    return `i${i} AS (${text} RETURNING 1)`;
  });
  const counts = statements.map((_, i) => `(SELECT count(*)::int FROM i${i}) AS c${i}`);
  return { text: `WITH ${parts.join(", ")} SELECT ${counts.join(", ")}`, params: statements.flatMap((statement) => statement.params) };
}

function postgresDirectSql(url: string, schema: string): DirectSql {
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === pg.types.builtins.TIMESTAMP
        ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: 10, types, options: `-c search_path="${schema}"` });
  // A named statement is prepared once per connection and reused.
  const names = new Map<string, string>();
  let namedGroups = 0;
  const query = (client: pg.Pool | pg.PoolClient, text: string, params: unknown[], group = false) => {
    let name = names.get(text);
    if (!name && !(group && namedGroups >= POSTGRES_NAMED_GROUPS)) {
      names.set(text, (name = `direct_${names.size}`));
      if (group) namedGroups++;
    }
    return client.query({ name, text, values: params.map(postgresValue) });
  };
  /** Each insert's count of rows written, all in one statement and one transaction. */
  const insertAll = async (batches: InsertBatch[]) => {
    const { text, params } = combinedInserts(batches.flatMap((batch) => batch.statements));
    const [counts] = (await query(pool, text, params, batches.length > 1)).rows as Record<string, number>[];
    let i = 0;
    return batches.map((batch) => batch.statements.map(() => ({ changes: counts![`c${i++}`]!, rows: [] })));
  };
  async function commitGroup(group: InsertBatch[]) {
    try {
      const results = await insertAll(group);
      group.forEach((batch, i) => batch.resolve(results[i]!));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      // The whole statement rolled back: each batch again on its own, so only the one at fault fails.
      await Promise.all(group.map((batch) => insertAll([batch]).then(([results]) => batch.resolve(results!), batch.reject)));
    }
  }
  let waiting: InsertBatch[] = [];
  let inFlight = 0;
  let flushScheduled = false;
  const scheduleFlush = () => {
    if (flushScheduled || waiting.length === 0 || inFlight >= POSTGRES_GROUPS_IN_FLIGHT) return;
    flushScheduled = true;
    setImmediate(flush);
  };
  function flush() {
    flushScheduled = false;
    while (waiting.length > 0 && inFlight < POSTGRES_GROUPS_IN_FLIGHT) {
      let params = 0;
      let taken = 0;
      for (const batch of waiting) {
        const more = batch.statements.reduce((sum, statement) => sum + statement.params.length, 0);
        if (taken === POSTGRES_GROUP_BATCHES || (taken > 0 && params + more > POSTGRES_GROUP_PARAMS)) break;
        params += more;
        taken++;
      }
      const group = waiting.slice(0, taken);
      waiting = waiting.slice(taken);
      inFlight++;
      void commitGroup(group).finally(() => {
        inFlight--;
        scheduleFlush();
      });
    }
  }
  return {
    dialect: "postgresql",
    ...bulkParts("postgresql"),
    all: async (text, params) => (await query(pool, text, params)).rows as Row[],
    async batch(steps) {
      if (steps.length === 0) return [];
      if (steps.every((step) => typeof step !== "function" && step.insertsOnly)) {
        return new Promise((resolve, reject) => {
          waiting.push({ statements: steps as Statement[], resolve, reject });
          scheduleFlush();
        });
      }
      // One round trip instead of one per statement plus BEGIN and COMMIT, where a single statement
      // does it atomically: a lone statement with nothing to check.
      const [only] = steps;
      if (steps.length === 1 && typeof only !== "function" && !only!.expect) {
        const result = await query(pool, only!.text, only!.params);
        return [{ changes: result.rowCount ?? 0, rows: result.rows as Row[] }];
      }
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const results: StatementResult[] = [];
        for (const step of steps) {
          const s = typeof step === "function" ? step(results) : step;
          const result = await query(client, s.text, s.params);
          const changes = result.rowCount ?? 0;
          if (s.expect && changes !== s.expect.changes) throw s.expect.error();
          results.push({ changes, rows: result.rows as Row[] });
        }
        await client.query("COMMIT");
        return results;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

export function openDirectSql(url: string, target: { sqlitePath: string } | { postgresSchema: string }): DirectSql {
  return "sqlitePath" in target ? sqliteDirectSql(target.sqlitePath) : postgresDirectSql(url, target.postgresSchema);
}
