// The operator CLI, two ways: `runAdminProcess` as an operator runs it, `tsx src/cli/admin.ts ...args`
// (what `npm run --silent admin -- ...` runs), a fresh process on the given DATABASE_URL; and
// `runAdmin`, the same command in this process (admin-run.ts, what that process runs), for the many
// commands a test runs: a process costs 1.5-4 s of CPU to start, mostly loading modules. Tests of
// what the process itself does (exit codes, what goes to stdout and stderr) use the first.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { expect } from "vitest";
import { adminCommand, adminErrorMessage } from "../../src/cli/admin-run.ts";

const root = resolve(import.meta.dirname, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** the JSON object on the last line of stdout */
  json: any;
}

/** The command in this process, answered as its process would answer (admin.ts). */
export async function runAdmin(args: string[], databaseUrl: string): Promise<CliResult> {
  try {
    const stdout = `${await adminCommand(args, { DATABASE_URL: databaseUrl })}\n`;
    return { code: 0, stdout, stderr: "", json: lastLineJson(stdout) };
  } catch (error) {
    return { code: 1, stdout: "", stderr: `${adminErrorMessage(error)}\n`, json: undefined };
  }
}

function lastLineJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    return undefined;
  }
}

export function runAdminProcess(args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli/admin.ts", ...args],
      { cwd: root, env: { PATH: process.env.PATH!, DATABASE_URL: databaseUrl }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        done({ code, stdout, stderr, json: lastLineJson(stdout) });
      },
    );
  });
}

export function expectOk(result: CliResult) {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
}

export function expectFailure(result: CliResult, message: string) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain(message);
}
