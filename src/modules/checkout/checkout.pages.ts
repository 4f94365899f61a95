// Serves the built checkout-ui: its hashed assets under /c/assets/, its index.html for
// /c/pay_..., /c/cs_... and /i/inv_..., the payer's refund claim page for /r/re_... (status 404
// when the id names nothing), and the merchant
// dashboard's page for /dashboard and every address under it (the app routes in the browser).
// Other /c/ paths, such as payment links (/c/plink_...), are not answered here (null) so their own
// handler runs.
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { AppDeps } from "../../context.ts";
import { DomainError } from "../../errors.ts";
import { httpStatusOf } from "../../rest/errors.ts";
import { refundById } from "../refunds/refunds.store.ts";
import { loadCheckout } from "./checkout.service.ts";

const CHECKOUT_UI_DIST = new URL("../../../checkout-ui/dist/", import.meta.url).pathname;

const PAGE_PATH = /^\/(?:c\/((?:pay|cs)_[0-9A-Za-z]{1,64})|i\/(inv_[0-9A-Za-z]{1,64}))\/?$/;
const CLAIM_PATH = /^\/r\/(re_[0-9A-Za-z]{1,64})\/?$/;
const ASSET_PATH = /^\/c\/assets\/([0-9A-Za-z._-]+)$/;
const DASHBOARD_PATH = /^\/dashboard(?:\/[0-9A-Za-z._~/-]*)?$/;
const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};
// The page talks to the same origin only and is never framed.
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export function createCheckoutPages(deps: AppDeps, dist = CHECKOUT_UI_DIST) {
  const files = new Map<string, Buffer>();
  async function load(path: string): Promise<Buffer | null> {
    // Missing files are not remembered: the page may be built after the server started.
    if (!files.has(path)) {
      const body = await readFile(join(dist, path)).catch(() => null);
      if (!body) return null;
      files.set(path, body);
    }
    return files.get(path)!;
  }

  return async function serveCheckoutPage(request: Request, url: URL): Promise<Response | null> {
    const asset = ASSET_PATH.exec(url.pathname);
    const dashboard = !asset && DASHBOARD_PATH.test(url.pathname);
    const page = asset || dashboard ? null : PAGE_PATH.exec(url.pathname);
    const claim = asset || dashboard || page ? null : CLAIM_PATH.exec(url.pathname);
    if (!asset && !page && !dashboard && !claim) return null;
    if (request.method !== "GET" && request.method !== "HEAD") return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
    if (asset) {
      const body = await load(join("assets", asset[1]!));
      if (!body) return new Response("Not found", { status: 404 });
      return new Response(new Uint8Array(body), {
        headers: {
          "content-type": TYPES[extname(asset[1]!)] ?? "application/octet-stream",
          // file names carry a content hash
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
        },
      });
    }
    const html = await load(dashboard ? "dashboard/index.html" : claim ? "claim/index.html" : "index.html");
    if (!html) {
      return new Response("The pages are not built: run `npm run build:checkout`.", {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    if (dashboard) return new Response(new Uint8Array(html), { headers: PAGE_HEADERS });
    // The refund's id is the claim page's only credential: whichever organization it is of.
    if (claim) return new Response(new Uint8Array(html), { status: (await refundById(deps.db, claim[1]!)) ? 200 : 404, headers: PAGE_HEADERS });
    let status = 200;
    try {
      await loadCheckout(deps, (page![1] ?? page![2])!);
    } catch (error) {
      // The page tells the payer itself (it reads the checkout too); the status is REST's for the error.
      if (!(error instanceof DomainError)) throw error;
      status = httpStatusOf(error.code);
    }
    return new Response(new Uint8Array(html), { status, headers: PAGE_HEADERS });
  };
}
