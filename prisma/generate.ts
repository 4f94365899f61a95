// Regenerates the derived schemas and both Prisma clients. postinstall passes --clients-only: it
// generates from the committed derived schemas, so CI's drift check still means something.
// The CLI looks for native engine binaries before it reads the config that says it needs none;
// pointing these variables at any existing file skips that download attempt.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dialects, schemaPath } from "./build-schemas.ts";

const prismaDir = dirname(fileURLToPath(import.meta.url));
const anyFile = join(prismaDir, "models.prisma");

if (!process.argv.includes("--clients-only")) {
  execFileSync(process.execPath, ["--import", "tsx", join(prismaDir, "build-schemas.ts")], { stdio: "inherit" });
}
for (const dialect of dialects) {
  execFileSync("npx", ["prisma", "generate", "--config", join(prismaDir, "prisma.config.ts"), "--schema", schemaPath(dialect)], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: anyFile,
      PRISMA_QUERY_ENGINE_LIBRARY: anyFile,
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
    },
  });
}
console.log("prisma clients generated for", dialects.join(", "));
