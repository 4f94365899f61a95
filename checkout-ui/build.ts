// Builds checkout-ui (the checkout, the refund claim page and the dashboard) into checkout-ui/dist. With --if-stale it does nothing when the build is newer
// than every source of the page (npm start, the browser tests), so an edited page is never served
// from an old build. Builds go to a temporary folder first and are renamed into place, so concurrent
// builders (two test projects) never serve a half-written dist.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const dist = `${root}dist`;

/** The newest modification time (ms) of the page's sources. */
function newestSource(): number {
  // The one module outside checkout-ui that a page bundles (the dashboard's webhook event kinds).
  const sources = ["index.html", "vite.config.ts", "../src/modules/events/event-kinds.ts"];
  for (const dir of ["src", "components", "claim", "dashboard"]) sources.push(...readdirSync(`${root}${dir}`, { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f}`));
  return Math.max(...sources.map((file) => statSync(`${root}${file}`).mtimeMs));
}

const isFresh = () => existsSync(`${dist}/index.html`) && statSync(`${dist}/index.html`).mtimeMs >= newestSource();

/** Whether it built: false when `ifStale` found the build up to date. */
export async function buildCheckoutUi(options: { ifStale?: boolean } = {}): Promise<boolean> {
  if (options.ifStale && isFresh()) return false;
  const temporary = `${root}dist.${process.pid}.${Date.now()}`;
  await build({ configFile: `${root}vite.config.ts`, build: { outDir: temporary, emptyOutDir: true } });
  // Another builder (the other test project) replaced the stale build meanwhile, and its pages may be
  // in use: replacing it again would delete the assets they load.
  if (options.ifStale && isFresh()) {
    rmSync(temporary, { recursive: true, force: true });
    return false;
  }
  rmSync(dist, { recursive: true, force: true });
  try {
    renameSync(temporary, dist);
  } catch (error) {
    // Another builder won the rename: its output is the same.
    if (!existsSync(`${dist}/index.html`)) throw error;
    rmSync(temporary, { recursive: true, force: true });
  }
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await buildCheckoutUi({ ifStale: process.argv.includes("--if-stale") });
  console.log(built ? "checkout-ui built" : "checkout-ui is up to date");
}
