// GraphiQL at GET /graphql for a browser (Accept: text/html), from @graphql-yoga/render-graphiql:
// its page carries GraphiQL's script, styles, fonts and editor workers inline, so it works with no
// internet (yoga's own renderer loads GraphiQL from a CDN). The page is about 9 MB: the module is
// imported on the first visit, not at start, and the page is rendered once.
//
// Keys: in production (config.production) an anonymous caller gets no introspection, so GraphiQL
// shows its schema only once the user puts `{"Authorization": "Bearer <key>"}` in the headers
// editor, which opens with the page, and re-fetches the schema (GraphiQL does not on its own).
// Headers are not persisted in localStorage (a key would outlive the tab on a shared machine): the
// user pastes the key again after a reload. Subscriptions go to /graphql/stream (graphql-sse), the
// one door for them.
//
// The page is served with a Content-Security-Policy: its own inline script only (by hash), editor
// workers from blob: URLs it makes, requests to this origin only, and no framing (frame-ancestors
// 'none', X-Frame-Options for older browsers): another site cannot overlay it to steer clicks.
import { createHash } from "node:crypto";
import type { GraphiQLOptions, Plugin } from "graphql-yoga";

export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: "Stellar Pay GraphiQL",
  shouldPersistHeaders: false,
  subscriptionsProtocol: "GRAPHQL_SSE",
  isHeadersEditorEnabled: true,
  defaultEditorToolsVisibility: "headers",
  defaultQuery: [
    "# Put your API key in Headers below:",
    '#   {"Authorization": "Bearer pk_test_..."}',
    "# then re-fetch the schema (the round arrow,",
    "# bottom left) for the docs and completion.",
    "",
    "{ payments(first: 5) { edges { node { id status amount } } } }",
    "",
  ].join("\n"),
};

let page: Promise<string> | undefined;
/** The page's policy, once it is rendered: its inline scripts' hashes go in it. */
let contentSecurityPolicy: string | undefined;

/** yoga's `renderGraphiQL`: the same options every time, so one rendering serves every visit. */
export function renderGraphiQLPage(options: GraphiQLOptions): Promise<string> {
  page ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) => {
    const html = renderGraphiQL(options);
    contentSecurityPolicy = policyFor(html);
    return html;
  });
  return page;
}

function policyFor(html: string): string {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, text]) => `'sha256-${createHash("sha256").update(text!).digest("base64")}'`);
  return [
    "default-src 'none'",
    // The editor's workers run from blob: URLs the page's script makes, and load more of them.
    `script-src ${scripts.join(" ")} blob:`,
    "worker-src blob:",
    // The editor sets styles at run time.
    "style-src 'unsafe-inline'",
    "font-src data:",
    "img-src data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The page's security headers, on yoga's answer to a page visit (the only text/html it sends). */
export function useGraphiQLPageHeaders(): Plugin {
  return {
    onResponse({ response }) {
      if (!response.headers.get("content-type")?.startsWith("text/html")) return;
      // Not yet rendered cannot happen (yoga answers after rendering); the strictest policy if it did.
      response.headers.set("content-security-policy", contentSecurityPolicy ?? "default-src 'none'; frame-ancestors 'none'");
      response.headers.set("x-frame-options", "DENY");
    },
  };
}
