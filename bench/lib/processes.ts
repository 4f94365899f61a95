// Servers under test run in child processes, so the load generator (this process) and the server do
// not share an event loop. Each child prints a line containing its URL on stdout once it listens.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createInterface } from "node:readline";

export interface ChildServer {
  url: string;
  pid: number;
  /** CPU time (user + system) the server process and its descendants have used so far, in ms; null where /proc is missing */
  cpuMs(): number | null;
  /** resident memory of the server process and its live descendants, in MiB; null where /proc is missing */
  rssMiB(): number | null;
  stop(): Promise<void>;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (field 3 of the manual's numbering is [0]). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

const ticksMs = (...ticks: string[]) => (ticks.reduce((sum, t) => sum + Number(t), 0) * 1000) / CLOCK_TICKS_PER_SECOND;

/** utime + stime of a Linux process: fields 14 and 15 of /proc/<pid>/stat. */
const ownCpuMs = (pid: number): number => ticksMs(...statFields(pid).slice(11, 13));

/** utime + stime of the children a process has reaped: fields 16 and 17. */
const reapedCpuMs = (pid: number): number => ticksMs(...statFields(pid).slice(13, 15));

/** The live child processes of a Linux process. */
export const childPids = (pid: number): number[] =>
  readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );

/** The CPU time of a process and its live descendants (a service with WORKERS > 1 is a process tree). */
function processCpuMs(pid: number): number | null {
  try {
    return childPids(pid).reduce((sum, child) => sum + (processCpuMs(child) ?? 0), ownCpuMs(pid));
  } catch {
    return null;
  }
}

/**
 * The CPU time of every PostgreSQL server process on this machine (the postmaster, its backends and
 * helpers: a request's database work), in ms; null where /proc is missing. A backend that has ended
 * counts through the postmaster, which reaps it (its children's time).
 */
export function postgresCpuMs(): number | null {
  try {
    let sum = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") sum += ownCpuMs(Number(entry)) + reapedCpuMs(Number(entry));
      } catch {
        // the process ended while the list was read
      }
    }
    return sum;
  } catch {
    return null;
  }
}

/** VmRSS of a process and its live descendants, in KiB. */
function processRssKiB(pid: number): number | null {
  try {
    const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    return childPids(pid).reduce((sum, child) => sum + (processRssKiB(child) ?? 0), own);
  } catch {
    return null;
  }
}

/** Spawns `command args`, waits for the first stdout line matching `http://host:port`, returns that URL. */
export function startChildServer(command: string, args: string[], env: Record<string, string> = {}): Promise<ChildServer> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const match = /(http:\/\/[\w.]+:\d+)/.exec(line);
      if (match) resolve({
          url: match[1]!,
          pid: child.pid!,
          cpuMs: () => processCpuMs(child.pid!),
          rssMiB: () => {
            const kib = processRssKiB(child.pid!);
            return kib === null ? null : kib / 1024;
          },
          stop: () => stopChild(child),
        });
    });
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${stderr.join("")}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  // Ended already: on its own (exitCode) or by a signal, e.g. a test's SIGKILL (signalCode).
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
  });
}

/** Whether a process of this id is still running (signal 0 only asks). */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The service's worker processes (WORKERS > 1): the primary's children that run src/main.ts (not tsx's esbuild). */
export function workerPids(primaryPid: number): number[] {
  return childPids(primaryPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("main.ts");
    } catch {
      return false; // exited meanwhile
    }
  });
}
