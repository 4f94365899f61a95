// Help text, written from the command table so that it cannot drift from what runs.
import { type Command, commands } from "./admin-commands.ts";

export const RUN = "npm run --silent admin --";

const synopsis = (name: string, command: Command) =>
  [name, ...Object.entries(command.flags).map(([flag, { value, optional }]) => (optional ? `[--${flag} ${value}]` : `--${flag} ${value}`))].join(" ");

export function usage(names = Object.keys(commands)): string {
  const width = Math.max(...names.map((name) => name.length));
  return [
    `usage: ${RUN} <command> [--flag value ...]`,
    "",
    "commands:",
    ...names.map((name) => `  ${name.padEnd(width)}  ${commands[name]!.summary}`),
    "",
    `Each command prints one JSON object on its last line of stdout; on error, a message on stderr and exit 1.`,
    `It uses DATABASE_URL as the service does (migrating it first). Flags of a command: ${RUN} <command> --help`,
  ].join("\n");
}

export function commandHelp(name: string): string {
  const command = commands[name]!;
  const flags = Object.entries(command.flags);
  const width = Math.max(0, ...flags.map(([flag, { value }]) => `--${flag} ${value}`.length));
  return [
    `usage: ${RUN} ${synopsis(name, command)}`,
    "",
    command.summary,
    "",
    ...(flags.length
      ? [
          flags.some(([, f]) => f.optional) ? "flags (required unless marked optional):" : "flags (all required):",
          ...flags.map(([flag, f]) => `  ${`--${flag} ${f.value}`.padEnd(width)}  ${f.optional ? "(optional) " : ""}${f.help}`),
          "",
        ]
      : []),
    `prints: ${command.prints}`,
  ].join("\n");
}
