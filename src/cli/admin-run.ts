// What `admin` (admin.ts) runs: the operator command argv asks for (the table in admin-commands.ts)
// on the DATABASE_URL of `env`, the server's (migrated first). Its answer is one JSON object, or help
// text; a failure throws, and adminErrorMessage says it to the operator. Kept apart from the process
// (admin.ts prints and exits) so that tests run commands without a process each.
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { DomainError } from "../errors.ts";
import { systemClock } from "../shared/clock.ts";
import { timeOrderedIds } from "../shared/ids.ts";
import { UsageError, commands } from "./admin-commands.ts";
import { RUN, commandHelp, usage } from "./admin-help.ts";

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";

/** What argv asks for: help text to print, or a command to run with its flags. */
function parse(argv: string[]): { help: string } | { name: string; flags: Record<string, string> } {
  if (argv.length === 0 || isHelp(argv[0])) return { help: usage() };
  const name = argv.slice(0, 2).join(" ");
  const command = commands[name];
  if (!command) {
    // `admin org --help`: the commands of that group.
    const group = Object.keys(commands).filter((n) => n.startsWith(`${argv[0]} `));
    if (group.length && isHelp(argv[1])) return { help: usage(group) };
    throw new UsageError(`unknown command "${name}": see ${RUN} --help`);
  }
  const seeHelp = `see ${RUN} ${name} --help`;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.slice(2),
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: "boolean", short: "h" },
        ...Object.fromEntries(Object.keys(command.flags).map((flag) => [flag, { type: "string" as const }])),
      },
    }));
  } catch (error) {
    // parseArgs names the problem: an unknown flag, a flag without its value, a stray argument.
    throw new UsageError(`${(error as Error).message.split("\n")[0]}: ${seeHelp}`);
  }
  if (values.help) return { help: commandHelp(name) };
  for (const [flag, { optional }] of Object.entries(command.flags)) {
    if (!optional && !values[flag]) throw new UsageError(`--${flag} is required: ${seeHelp}`);
  }
  return { name, flags: values as Record<string, string> };
}

/** The output of the command `argv` asks for: its result as one JSON line, or help text. */
export async function adminCommand(argv: string[], env: Record<string, string | undefined>): Promise<string> {
  const request = parse(argv);
  if ("help" in request) return request.help;
  const config = loadConfig(env);
  // The database's modules load only now (as the services do: admin-commands.ts), not for help.
  const [{ openDatabase }, { migrateDatabase }] = await Promise.all([import("../db/client.ts"), import("../db/migrate.ts")]);
  await migrateDatabase(config.databaseUrl);
  const database = openDatabase(config.databaseUrl);
  try {
    const result = await commands[request.name]!.run({ db: database.db, config, clock: systemClock, ids: timeOrderedIds }, request.flags);
    return JSON.stringify(result);
  } finally {
    await database.close();
  }
}

/** What the operator is told when a command fails. */
export const adminErrorMessage = (error: unknown): string =>
  error instanceof DomainError && error.code === "NOT_FOUND" ? "organization not found" : error instanceof Error ? error.message : String(error);
