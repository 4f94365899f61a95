// What the tests need of the machine, and `npm test`'s check of it (npm runs this file as `pretest`):
//   - PostgreSQL at TEST_DATABASE_URL (default: 127.0.0.1:5432, user postgres, database `test`):
//     a local cluster that is down is started, a missing database is created;
//   - Debian's Chromium for the browser tests (checkout page, GraphiQL): installed with apt as root.
// What it cannot provide stops the run at once, with one message naming the command to run first.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The server and database the PostgreSQL tests use: each test file makes its own schema there. */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
/** Debian's Chromium (package chromium), driven by playwright-core. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** A prerequisite this script cannot provide; its message says what to run. */
class Unmet extends Error {}

const isRoot = process.getuid?.() === 0;
/** How the commands named in messages get the rights they need, from this user. */
const sudo = isRoot ? "" : "sudo ";
const asPostgres = isRoot ? "runuser -u postgres -- " : "sudo -u postgres ";
const onPath = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
const say = (line: string) => console.log(`npm test: ${line}`);

type PgError = Error & { code?: string };

/** null when `url` takes a connection. */
async function connectionError(url: string): Promise<PgError | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error as PgError;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Nobody answers yet: refused, no such socket or host, timed out, or a server still starting. */
const notAnswering = (error: PgError) =>
  ["ECONNREFUSED", "ENOENT", "ETIMEDOUT", "EHOSTUNREACH", "57P03"].includes(error.code ?? "") || /timeout/i.test(error.message);

async function ensurePostgres(): Promise<void> {
  const url = new URL(PG_ADMIN_URL);
  const port = url.port || "5432";
  const where = `${url.hostname}:${port}`;
  let error = await connectionError(PG_ADMIN_URL);
  if (error && notAnswering(error) && startLocalCluster(url.hostname, port, where)) {
    for (let waited = 0; error && notAnswering(error) && waited < 30; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      error = await connectionError(PG_ADMIN_URL);
    }
  }
  if (error?.code === "3D000") error = await createDatabase(url);
  if (!error) return commitWithoutWaitingForDisk(url);
  if (error.code === "28P01" || error.code === "28000" || /password/i.test(error.message)) {
    throw new Unmet(
      `PostgreSQL at ${where} refused user ${url.username || "postgres"} (${error.message}). The tests connect ` +
        `without a password (trust for 127.0.0.1 in pg_hba.conf); or give one, e.g. ` +
        `${asPostgres}psql -p ${port} -c "ALTER USER postgres PASSWORD 'postgres'" and then ` +
        `TEST_DATABASE_URL=postgresql://postgres:postgres@${where}/test npm test`,
    );
  }
  throw new Unmet(`PostgreSQL at ${where} does not answer (${error.message}). Start it, or set TEST_DATABASE_URL to a server of yours.`);
}

/** Starts the cluster of this machine that serves `port`, when it is down and this process may; whether it did. */
function startLocalCluster(host: string, port: string, where: string): boolean {
  if (!["127.0.0.1", "localhost", "[::1]"].includes(host)) return false;
  if (!onPath("pg_lsclusters")) {
    throw new Unmet(
      `nothing answers at ${where} and PostgreSQL is not installed. Install it first ` +
        `(Debian: ${sudo}apt-get install -y postgresql), or set TEST_DATABASE_URL to a server of yours.`,
    );
  }
  // pg_lsclusters: "15 main 5432 down postgres /var/lib/postgresql/15/main ..."
  const cluster = execFileSync("pg_lsclusters", ["--no-header"], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find(([, , clusterPort]) => clusterPort === port);
  if (!cluster) {
    throw new Unmet(`nothing answers at ${where} and no PostgreSQL cluster of this machine uses port ${port} (pg_lsclusters). Start a server there, or set TEST_DATABASE_URL to a server of yours.`);
  }
  const [version, name, , status] = cluster as [string, string, string, string];
  if (status !== "down") return false;
  const start = ["--skip-systemctl-redirect", version, name, "start"];
  const command = `pg_ctlcluster ${start.join(" ")}`;
  if (!isRoot) throw new Unmet(`PostgreSQL ${version}/${name} is down. Start it first: sudo ${command}`);
  say(`starting PostgreSQL ${version}/${name} (${command})`);
  const started = spawnSync("pg_ctlcluster", start, { encoding: "utf8" });
  if (started.status !== 0) throw new Unmet(`${command} failed: ${(started.stderr || started.stdout).trim()}`);
  return true;
}

/**
 * The tests' database commits without waiting for its WAL to reach the disk (synchronous_commit off,
 * for the sessions opened from now on). The tests kill service processes, never PostgreSQL, so every
 * commit they count on survives; waiting on fsync was most of the time CI's cores sat idle. Only speed
 * is at stake, so a server that refuses (not the database's owner) is left as it is.
 */
async function commitWithoutWaitingForDisk(url: URL): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await client.connect();
    await client.query(`ALTER DATABASE ${client.escapeIdentifier(decodeURIComponent(url.pathname.slice(1)))} SET synchronous_commit = off`);
  } catch {
    // not the owner: the tests run as they are, only slower
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates the database of PG_ADMIN_URL from the server's `postgres` database; the error if it cannot. */
async function createDatabase(url: URL): Promise<PgError | null> {
  const database = decodeURIComponent(url.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const client = new pg.Client({ connectionString: maintenance.toString() });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    say(`created database ${database}`);
  } catch (error) {
    if ((error as PgError).code !== "42P04") {
      throw new Unmet(`database ${database} is missing and could not be created (${(error as Error).message}). Create it first: createdb -h ${url.hostname} -p ${url.port || 5432} -U ${url.username || "postgres"} ${database}`);
    }
  } finally {
    await client.end().catch(() => {});
  }
  return connectionError(PG_ADMIN_URL);
}

function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  const install = "apt-get update && apt-get install -y chromium";
  if (!isRoot || !onPath("apt-get")) {
    throw new Unmet(`Chromium is not installed (${CHROMIUM_PATH}, for the browser tests). Install it first (Debian): ${sudo}sh -c '${install}'`);
  }
  say(`installing Chromium for the browser tests (${install})`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update", "-qq"], ["install", "-y", "-qq", "chromium"]]) {
    const run = spawnSync("apt-get", args, { encoding: "utf8", env });
    if (run.status !== 0) throw new Unmet(`apt-get ${args.join(" ")} failed: ${(run.stderr || run.stdout).trim()}. Install Chromium first: ${install}`);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Unmet(`apt installed chromium, but ${CHROMIUM_PATH} is not there.`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await ensurePostgres();
    ensureChromium();
  } catch (error) {
    if (!(error instanceof Unmet)) throw error;
    console.error(`npm test cannot run yet: ${error.message}`);
    process.exit(1);
  }
}
