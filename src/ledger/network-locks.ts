// Which process watches which network. On PostgreSQL several app processes (on several hosts) share
// one database: a network's stream needs a session-level advisory lock (pg_try_advisory_lock) held on
// one dedicated connection, so exactly one process watches a network and another takes over when that
// process (and with it the connection) dies. On SQLite the worker processes of one service
// (WORKERS > 1) ask their primary process, which frees a worker's locks when it exits; a single
// process holds every lock.
import { createHash } from "node:crypto";
import pg from "pg";
import { coordinatorClient } from "../cluster/coordinator.ts";
import type { Config } from "../config.ts";
import { postgresSchema } from "../db/client.ts";
import type { Logger } from "../shared/logger.ts";

export interface NetworkLocks {
  tryAcquire(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
  /** Called when held locks were lost (the lock connection dropped): their streams must stop. */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

export function createNetworkLocks(config: Config, logger: Logger): NetworkLocks {
  if (config.dialect === "sqlite") {
    const coordinator = coordinatorClient();
    return {
      tryAcquire: async (key) => (coordinator ? coordinator.tryLock(key) : true),
      release: async (key) => void (await coordinator?.unlock(key)),
      // The primary keeps a worker's locks as long as the worker lives.
      onLost: () => {},
      close: async () => {},
    };
  }
  return new PostgresNetworkLocks(config.databaseUrl, logger);
}

/** A signed 64-bit lock id; the schema is part of it so that databases sharing a server never clash. */
function lockId(schema: string, key: string): string {
  return createHash("sha256").update(`${schema}\0${key}`).digest().readBigInt64BE().toString();
}

class PostgresNetworkLocks implements NetworkLocks {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly listeners: (() => void)[] = [];
  private readonly schema: string;
  private readonly connectionString: string;

  constructor(databaseUrl: string, private readonly logger: Logger) {
    this.schema = postgresSchema(databaseUrl);
    const url = new URL(databaseUrl);
    url.searchParams.delete("schema");
    this.connectionString = url.toString();
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString });
      client.on("error", (error) => {
        this.logger.warn("ledger lock connection lost", { error });
        if (this.client === client) this.client = null;
        for (const listener of this.listeners) listener();
      });
      try {
        await client.connect();
        this.client = client;
        return client;
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }

  // One connection holds every lock, and pg wants one query at a time on a client: queue them.
  private queue: Promise<unknown> = Promise.resolve();

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.queue.then(work);
    this.queue = turn.catch(() => {});
    return turn;
  }

  tryAcquire(key: string): Promise<boolean> {
    return this.inTurn(async () => {
      const client = await this.connection();
      const result = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [lockId(this.schema, key)]);
      return result.rows[0]!.ok;
    });
  }

  release(key: string): Promise<void> {
    return this.inTurn(async () => {
      if (!this.client) return;
      await this.client.query("SELECT pg_advisory_unlock($1::bigint)", [lockId(this.schema, key)]);
    });
  }

  onLost(listener: () => void) {
    this.listeners.push(listener);
  }

  async close() {
    const client = this.client;
    this.client = null;
    await client?.end();
  }
}
