// Builds checkout-ui into checkout-ui/dist. With --if-missing it does nothing when a build exists
// (npm start, the browser tests). Builds go to a temporary folder first and are renamed into place,
// so concurrent builders (two test projects) never serve a half-written dist.
import { existsSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const dist = `${root}dist`;

export async function buildCheckoutUi(options: { ifMissing?: boolean } = {}) {
  if (options.ifMissing && existsSync(`${dist}/index.html`)) return;
  const temporary = `${root}dist.${process.pid}.${Date.now()}`;
  await build({ configFile: `${root}vite.config.ts`, build: { outDir: temporary, emptyOutDir: true } });
  rmSync(dist, { recursive: true, force: true });
  try {
    renameSync(temporary, dist);
  } catch (error) {
    // Another builder won the rename: its output is the same.
    if (!existsSync(`${dist}/index.html`)) throw error;
    rmSync(temporary, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCheckoutUi({ ifMissing: process.argv.includes("--if-missing") });
  console.log("checkout-ui built");
}
