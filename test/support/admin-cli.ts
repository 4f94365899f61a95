// The operator CLI as an operator runs it: `tsx src/cli/admin.ts ...args` (what
// `npm run --silent admin -- ...` runs), a fresh process on the given DATABASE_URL.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { expect } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** the JSON object on the last line of stdout */
  json: any;
}

export function runAdmin(args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli/admin.ts", ...args],
      { cwd: root, env: { PATH: process.env.PATH!, DATABASE_URL: databaseUrl }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        const lastLine = stdout.trim().split("\n").at(-1) ?? "";
        let json: unknown;
        try {
          json = JSON.parse(lastLine);
        } catch {
          json = undefined;
        }
        done({ code, stdout, stderr, json });
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
