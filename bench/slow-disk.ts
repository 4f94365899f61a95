// `npm run bench:slow-disk -- MICROSECONDS [command ...]` (#29): runs a bench as if the disk took
// MICROSECONDS longer to sync a file (every fsync and fdatasync of every process the command starts),
// to see how a figure depends on the disk: a create's aim against a reference that commits each
// request holds or fails with what a sync costs, and this machine's disk syncs in ~0.4 ms where a
// cloud volume takes 1-3 ms. The default command is the SQLite POST of bench:reads. How: a shared
// library put first with LD_PRELOAD wraps libc's fsync and fdatasync (better-sqlite3's SQLite calls
// them through libc) and sleeps after the real call; it is built here with the machine's cc. The
// PostgreSQL server is started by the machine, not by the bench, so it is not slowed (bench/README.md
// says how to start it under the same library).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SHIM = String.raw`
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
static void slow(void) {
  const char *us = getenv("SYNC_DELAY_US");
  long n = us ? atol(us) : 0;
  if (n > 0) { struct timespec t = { n / 1000000, (n % 1000000) * 1000 }; nanosleep(&t, 0); }
}
int fsync(int fd) { static int (*real)(int); if (!real) real = dlsym(RTLD_NEXT, "fsync"); int r = real(fd); slow(); return r; }
int fdatasync(int fd) { static int (*real)(int); if (!real) real = dlsym(RTLD_NEXT, "fdatasync"); int r = real(fd); slow(); return r; }
`;

const [delay, ...command] = process.argv.slice(2);
if (!delay || !/^\d+$/.test(delay)) {
  console.error("usage: npm run bench:slow-disk -- MICROSECONDS [command ...]   (e.g. 1000 for a sync 1 ms slower)");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "slow-disk-"));
writeFileSync(join(dir, "slow-sync.c"), SHIM);
const built = spawnSync("cc", ["-shared", "-fPIC", "-O2", "-o", join(dir, "slow-sync.so"), join(dir, "slow-sync.c"), "-ldl"], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);

const [program, ...args] = command.length ? command : ["npm", "run", "bench:reads"];
const env = { BENCH_ONLY: "POST", BENCH_DATABASES: "sqlite", ...process.env, SYNC_DELAY_US: delay, LD_PRELOAD: join(dir, "slow-sync.so") };
console.log(`every sync ${Number(delay) / 1000} ms slower: ${[program, ...args].join(" ")}`);
const ran = spawnSync(program!, args, { stdio: "inherit", env });
rmSync(dir, { recursive: true, force: true });
process.exit(ran.status ?? 1);
