// Where tests keep their SQLite databases and Chromium profiles: memory-backed /dev/shm where the
// machine has room there, so a commit's fsync (and Chromium's) costs nothing. What the tests check of
// durability (kill -9 of a service process, restarts) is the page cache's, which a killed process
// leaves intact; fsync guards against power loss, which no test can cause, and waiting on it was most
// of the time CI's cores sat idle.
import { statfsSync } from "node:fs";
import { tmpdir } from "node:os";

const MEMORY_DIR = "/dev/shm";
const ROOM_NEEDED = 4 * 1024 ** 3;

function hasRoom(path: string): boolean {
  try {
    const { bavail, bsize } = statfsSync(path);
    return bavail * bsize > ROOM_NEEDED;
  } catch {
    return false;
  }
}

export const SCRATCH_DIR = hasRoom(MEMORY_DIR) ? MEMORY_DIR : tmpdir();
